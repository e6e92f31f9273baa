using System.Collections.Concurrent;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Sync;

namespace Kobo.Sync.SyncApi.Infrastructure.Auth;

/// <summary>
/// The revoked devices this instance knows of, checked by <see cref="DeviceTokenHandler"/> on every
/// request, cached tokens included. A revocation made here applies from the next request on; one made
/// by another instance arrives through <c>DeviceRevocationRefresher</c>, which polls the store. A token
/// issued (<c>iat</c>) after the revocation passes, so a re-enrolled device with a fresh token works.
/// A revocation is kept only while it is in force (<see cref="ForgetBefore"/>): its size is that of the
/// revocations made within a token's lifetime, which the per-user device limit bounds.
/// </summary>
public sealed class DeviceRevocationList : IRevokedDevices
{
    private readonly ConcurrentDictionary<(long User, string Device), DateTimeOffset> _revoked = new();

    /// <summary>No device revoked: the usual case, checked without reading the token's claims.</summary>
    public bool IsEmpty => _revoked.IsEmpty;

    /// <summary>How many revocations this instance holds.</summary>
    public int Count => _revoked.Count;

    /// <summary>
    /// Keeps the later of the known and the given time: a device revoked, re-enrolled and revoked again
    /// must lose the token it got in between; an older time arriving late (a refresh) changes nothing.
    /// </summary>
    public void Revoke(UserNo user, string deviceId, DateTimeOffset revokedAt)
    {
        var changed = false;
        _revoked.AddOrUpdate(
            (user.Value, deviceId),
            _ =>
            {
                changed = true;
                return revokedAt;
            },
            (_, known) =>
            {
                changed = known < revokedAt;
                return changed ? revokedAt : known;
            });
        if (changed)
        {
            Revoked?.Invoke(user.Value);
        }
    }

    /// <summary>A revocation new to this instance (or a later time for a known one), with its user: held requests re-check.</summary>
    public event Action<long>? Revoked;

    /// <summary>
    /// Drops the revocations made before <paramref name="cutoff"/>: every token they refused has
    /// expired. A revocation renewed meanwhile (a later time) stays. Returns how many were dropped.
    /// </summary>
    public int ForgetBefore(DateTimeOffset cutoff)
    {
        var forgotten = 0;
        foreach (var entry in _revoked)
        {
            if (entry.Value < cutoff && _revoked.TryRemove(entry))
            {
                forgotten++;
            }
        }

        return forgotten;
    }

    /// <summary>True when the device is revoked and the token was issued at or before that.</summary>
    public bool IsRevoked(UserNo user, string deviceId, DateTimeOffset issuedAt) =>
        !_revoked.IsEmpty
        && _revoked.TryGetValue((user.Value, deviceId), out var revokedAt)
        // iat has whole seconds: a token of the revocation's own second counts as revoked.
        && issuedAt.ToUnixTimeSeconds() <= revokedAt.ToUnixTimeSeconds();
}
