using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// The answers an instance holds in memory while devices take them (<see cref="AnswerBufferingMiddleware"/>):
/// at most <c>Admission:AnswerBytes</c> in all and <c>Admission:PerUserAnswerBytes</c> for one user's devices
/// and Kobo links together, so slow or absent readers cannot grow the instance's memory without bound.
/// One answer always fits where nothing is held, however large (its size is bounded by the endpoints).
/// </summary>
public sealed class AnswerLoads(IOptions<AdmissionOptions> options)
{
    private readonly AdmissionOptions _options = options.Value;
    private readonly Dictionary<string, long> _users = new(StringComparer.Ordinal);
    private long _bytes;

    /// <summary>Why an answer could not be held.</summary>
    public enum Refusal
    {
        None,
        User,
        Instance,
    }

    /// <summary>Bytes of answers held now.</summary>
    public long Bytes
    {
        get
        {
            lock (_users)
            {
                return _bytes;
            }
        }
    }

    public Refusal TryHold(string user, long bytes)
    {
        lock (_users)
        {
            var held = _users.GetValueOrDefault(user);
            if (held > 0 && held + bytes > _options.PerUserAnswerBytes)
            {
                return Refusal.User;
            }

            if (_bytes > 0 && _bytes + bytes > _options.AnswerBytes)
            {
                return Refusal.Instance;
            }

            _users[user] = held + bytes;
            _bytes += bytes;
            return Refusal.None;
        }
    }

    public void Release(string user, long bytes)
    {
        lock (_users)
        {
            _bytes -= bytes;
            var held = _users.GetValueOrDefault(user) - bytes;
            if (held <= 0)
            {
                _users.Remove(user);
            }
            else
            {
                _users[user] = held;
            }
        }
    }
}
