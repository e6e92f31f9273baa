using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Storage.Standbys;

/// <summary>
/// Each user's last write that a standby may not have replayed yet, as this instance knows it: the user's
/// change sequence after each commit it made (<see cref="ICommitSignals"/>) and after each commit another
/// instance told it of (live pull's notifications). A read from a standby is accepted only when the
/// standby's sequence for the user has reached it (<see cref="StandbyReads"/>).
/// <para>
/// The writes are held in two generations of <see cref="Window"/> each, with no timer: a write is kept
/// for at least one window, and <see cref="Lookup"/> says from when every write is still known. A
/// standby is used only when its replay lags less than the time since then (and less than the window), so
/// a write that was forgotten has been replayed on every standby that may still answer. A generation
/// that fills up (<see cref="MaxUsersPerGeneration"/>) starts the next early, which shortens what is
/// covered and so the lag a standby may have, never what a device is shown.
/// </para>
/// </summary>
public sealed class RecentWrites(TimeSpan window, TimeProvider clock, int maxUsersPerGeneration = RecentWrites.MaxUsersPerGeneration)
    : ICommitSignals
{
    /// <summary>Users held per generation at most (about 40 bytes each: 40 MB for two full generations).</summary>
    public const int MaxUsersPerGeneration = 500_000;

    private readonly Lock _lock = new();
    private readonly long _window = (long)(window.TotalSeconds * clock.TimestampFrequency);
    private Dictionary<long, long> _current = [];
    private Dictionary<long, long> _previous = [];
    private long _currentStarted = clock.GetTimestamp();

    /// <summary>From this timestamp (<see cref="TimeProvider.GetTimestamp"/>) on, every write this instance heard of is held.</summary>
    private long _coveredSince = clock.GetTimestamp();

    public TimeSpan Window { get; } = window;

    void ICommitSignals.Committed(UserNo user, long seq) => Record(user.Value, seq);

    /// <summary>The user's changes up to <paramref name="seq"/> are committed (by this instance or another).</summary>
    public void Record(long user, long seq)
    {
        var now = clock.GetTimestamp();
        lock (_lock)
        {
            Rotate(now);
            if (!_current.ContainsKey(user) && _current.Count >= maxUsersPerGeneration)
            {
                Start(now);
            }

            if (!_current.TryGetValue(user, out var held) || held < seq)
            {
                _current[user] = seq;
            }
        }
    }

    /// <summary>
    /// The user's last write this instance knows of (0 when none is held: a read must see at least it), and
    /// how far back every write is still held (since the older generation began, or since the start).
    /// </summary>
    public (long LastWrite, TimeSpan Covered) Lookup(long user)
    {
        lock (_lock)
        {
            var now = clock.GetTimestamp();
            Rotate(now);
            return (Math.Max(
                _current.GetValueOrDefault(user), _previous.GetValueOrDefault(user)), clock.GetElapsedTime(_coveredSince, now));
        }
    }

    private void Rotate(long now)
    {
        // A write held longer than needed costs nothing: a standby that replayed it is accepted all the same.
        if (now - _currentStarted >= _window)
        {
            Start(now);
        }
    }

    /// <summary>The current generation becomes the previous one; what the previous held is forgotten.</summary>
    private void Start(long now)
    {
        _coveredSince = _currentStarted;
        _previous = _current;
        _current = new Dictionary<long, long>(Math.Min(_previous.Count, maxUsersPerGeneration));
        _currentStarted = now;
    }
}
