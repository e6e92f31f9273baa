using System.Globalization;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Scenarios.Sync;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Day;

/// <summary>
/// A fleet's day (the release gate's traffic): each sync is one scheduled sync of a device never seen
/// before in the run (the devices in order, so n syncs come from n distinct devices), of a kind drawn by
/// the profile's <see cref="DayMix"/>:
/// <list type="bullet">
/// <item><b>scheduled</b>: a user drawn over all users; one pull from the token the device kept, which
/// finds nothing new unless the run wrote to the user;</item>
/// <item><b>active</b>: one of the heaviest users (readers who highlight); pull, push what was read
/// offline (a highlight with a note, one without, and the deletion of one made and removed offline, all
/// in one of the user's books), put that book's reading position and status, pull again;</item>
/// <item><b>first sync</b>: a user drawn over all users; the whole library and every highlight, page after page;</item>
/// <item><b>drawer</b>: one of the heaviest users, back after months: its library is current, every
/// highlight is pulled again, page after page.</item>
/// </list>
/// Each request goes through the device's retry pipeline (backoff with jitter, Retry-After) and is
/// recorded in its step (pull, push, reading-state, pull-again). What the devices were told goes to the
/// <see cref="DayLedger"/> when there is one, for the checks against the database after the run.
/// </summary>
public sealed class DeviceDayScenario : ISyncSessionScenario
{
    private readonly ReadSampling _sampling;
    private readonly ISyncClient _client;
    private readonly ScenarioLoad _load;
    private readonly DeviceBehaviour _device;
    private readonly DayTokens _tokens;
    private readonly DayLedger? _ledger;
    private readonly int _seed;
    private readonly ScenarioStats _pull;
    private readonly ScenarioStats _push;
    private readonly ScenarioStats _readingState;
    private readonly ScenarioStats _pullAgain;
    private readonly long[] _kinds = new long[4];
    private readonly long _run = DateTimeOffset.UtcNow.ToUnixTimeSeconds();
    private long _unexpected;

    public DeviceDayScenario(
        ReadSampling sampling, ISyncClient client, ScenarioLoad load, DeviceBehaviour device, DayTokens tokens, DayLedger? ledger, int seed)
    {
        _sampling = sampling;
        _client = client;
        _load = load;
        _device = device;
        _tokens = tokens;
        _ledger = ledger;
        _seed = seed;
        _pull = new ScenarioStats($"{load.Name}/pull");
        _push = new ScenarioStats($"{load.Name}/push");
        _readingState = new ScenarioStats($"{load.Name}/reading-state");
        _pullAgain = new ScenarioStats($"{load.Name}/pull-again");
    }

    public ReadKind Read => ReadKind.Day;

    public Transport Transport => _client.Transport;

    /// <summary>
    /// The steps the mix makes: push, reading-state and pull-again only when it has active syncs (a run of
    /// other kinds alone, as <c>load/bench/day-kinds.sh</c> makes, has no such step to judge).
    /// </summary>
    public IReadOnlyList<ScenarioStats> StepStats => _load.Mix.Active > 0 ? [_pull, _push, _readingState, _pullAgain] : [_pull];

    /// <summary>Syncs of each kind so far, in <see cref="DaySyncKind"/> order.</summary>
    public IReadOnlyList<long> Kinds => [.. _kinds.Select(k => Interlocked.Read(ref k))];

    /// <summary>Scheduled pulls of users the run never wrote to that received changes anyway (there should be none).</summary>
    public long Unexpected => Interlocked.Read(ref _unexpected);

    public SimulatedDevice DeviceFor(long sequence) => _sampling.DeviceInOrder(sequence);

    /// <summary>
    /// The key of the <paramref name="index"/>-th highlight change of a device's active sync in run
    /// <paramref name="run"/> (the run's start in seconds) over a transport (its initial): each run and
    /// each day scenario of it writes keys of its own, so every highlight a run writes is written once,
    /// which the ledger's checks rely on.
    /// </summary>
    public static string KeyOf(int seed, long run, char transport, SimulatedDevice device, int index) =>
        string.Create(CultureInfo.InvariantCulture, $"day{seed}-{run}-{transport}{device.Number}-{index}");

    /// <summary>The kind of a device's sync and its user (active and drawer devices are the heaviest users').</summary>
    public (DaySyncKind Kind, long User) Plan(SimulatedDevice device)
    {
        var kind = _load.Mix.KindOf(device);
        return (kind, kind is DaySyncKind.Active or DaySyncKind.Drawer ? _sampling.HeavyUserOf(device).UserNo : AnyUser(device));
    }

    /// <summary>Warm-up: a scheduled pull, unrecorded, written to no ledger.</summary>
    public async ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = AnyUser(device);
        var (outcome, _, _) = await PullAsync(
            new SessionSteps(null, _device, 0), null, user, _tokens.Issue(user, DayTokens.CaughtUp(user)), device, cancellationToken);
        return outcome;
    }

    public async ValueTask<(SyncAttempt Outcome, int Attempts)> SessionAsync(
        SimulatedDevice device, long sequence, int second, DeviceRetryPipeline steps, CancellationToken cancellationToken)
    {
        var session = new SessionSteps(steps, _device, second);
        var (kind, user) = Plan(device);
        Interlocked.Increment(ref _kinds[(int)kind]);
        var from = kind switch
        {
            DaySyncKind.FirstSync => SyncPosition.Start,
            DaySyncKind.Drawer => DayTokens.BackFromDrawer,
            _ => DayTokens.CaughtUp(user),
        };
        var since = kind == DaySyncKind.FirstSync ? null : _tokens.Issue(user, from);
        var (outcome, token, received) = await PullAsync(session, _pull, user, since, device, cancellationToken);
        if (!outcome.Ok)
        {
            return (outcome, session.Attempts);
        }

        if (kind == DaySyncKind.Active)
        {
            var book = _sampling.BookOf(device, _sampling.HeavyUserOf(device));
            (outcome, token, var again) = await ActiveAsync(session, user, book, token!, device, cancellationToken);
            received += again;
            if (!outcome.Ok)
            {
                return (outcome, session.Attempts);
            }
        }

        Record(kind, user, from, token!, received);
        return (outcome, session.Attempts);
    }

    private async ValueTask<(SyncAttempt Outcome, string? Token, long Received)> ActiveAsync(
        SessionSteps session, long user, long book, string token, SimulatedDevice device, CancellationToken cancellationToken)
    {
        // Whole milliseconds: the database keeps microseconds, and the ledger's check compares the times.
        var now = DateTimeOffset.FromUnixTimeMilliseconds(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds());
        var batch = Batch(user, book, device, now);
        var expected = batch.Select(
            h => new HighlightId(new UserNo(user), new BookNo(h.BookNo), HighlightKey.Parse(h.Key)).ToString()).ToList();
        var outcome = await SyncPush.BatchAsync(session, _push, _client, user, batch, expected, device, cancellationToken);
        if (!outcome.Ok)
        {
            return (outcome, token, 0);
        }

        for (var i = 0; i < batch.Count; i++)
        {
            _ledger?.Highlight(user, expected[i], batch[i].Delete);
        }

        var percent = Math.Round(device.Pick(10_001, salt: 61) / 100.0, 2);
        outcome = await session.RunAsync(
            _readingState, ct => _client.PutReadingStateAsync(user, book, percent, now, device, ct), cancellationToken);
        if (!outcome.Ok)
        {
            return (outcome, token, 0);
        }

        _ledger?.ReadingState(user, book, now);
        var (pulled, last, received) = await PullAsync(session, _pullAgain, user, token, device, cancellationToken);
        return (pulled, last, received);
    }

    private List<NewHighlight> Batch(long user, long book, SimulatedDevice device, DateTimeOffset now)
    {
        var batch = new List<NewHighlight>(3);
        for (var i = 0; i < 3; i++)
        {
            var key = KeyOf(_seed, _run, Transport == Transport.Grpc ? 'g' : 'r', device, i);
            var text = string.Create(CultureInfo.InvariantCulture, $"Passage {i} read by user {user} on {device.DeviceId}");
            batch.Add(NewHighlight.Drawn(device, i, book, key, text, now) with
            {
                Note = i == 0 ? "A note written offline" : null,
                Delete = i == 2, // made and deleted offline: the service keeps its tombstone
            });
        }

        return batch;
    }

    private ValueTask<(SyncAttempt Outcome, string? Token, long Highlights)> PullAsync(
        SessionSteps session, ScenarioStats? stats, long user, string? since,
        SimulatedDevice device, CancellationToken cancellationToken) =>
        SyncPull.AllPagesAsync(session, stats, _client, user, since, _load.PageSize, device, cancellationToken);

    /// <summary>
    /// Ledgers the sync's highlight range when it could have missed something: a user the run writes to
    /// (a heavy user), a first sync or catch-up, or a pull that moved or received anything.
    /// </summary>
    private void Record(DaySyncKind kind, long user, SyncPosition from, string token, long received)
    {
        var to = _tokens.Resolve(user, token);
        var moved = to.HighlightSeq != from.HighlightSeq || !string.Equals(to.HighlightId, from.HighlightId, StringComparison.Ordinal);
        var heavy = _sampling.IsHeavy(user);
        if (kind == DaySyncKind.Scheduled && !heavy && (received > 0 || moved))
        {
            Interlocked.Increment(ref _unexpected);
        }

        if (kind != DaySyncKind.Scheduled || heavy || received > 0 || moved)
        {
            _ledger?.Pull(user, kind, from.HighlightSeq, from.HighlightId, to.HighlightSeq, to.HighlightId, received);
        }
    }

    private long AnyUser(SimulatedDevice device) => 1 + device.Pick((int)Math.Min(_sampling.Users, int.MaxValue), salt: 43);
}
