using System.Globalization;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Sync;

/// <summary>
/// A full device sync session (REST or gRPC), as an e-reader makes it: pull every page since its token,
/// push a small batch of new highlights (what the reader did offline), pull again from the token the
/// first pull ended with (which brings its own pushes back). The simulator keeps nothing per device,
/// so a device's starting token is derived, not stored: none, the first sync of a new device, of a
/// user drawn uniformly over all users (so mostly the long tail's light users). The new highlights'
/// keys derive from (seed, device, session), so the same seed replays the same batches (the service
/// answers <c>unchanged</c>), and their ids follow the Domain's highlight id scheme.
/// </summary>
public sealed class DeviceSyncSessionScenario : ISyncSessionScenario
{
    private readonly ReadSampling _sampling;
    private readonly ISyncClient _client;
    private readonly ScenarioLoad _load;
    private readonly DeviceBehaviour _device;
    private readonly int _seed;
    private readonly ScenarioStats _pull;
    private readonly ScenarioStats _push;
    private readonly ScenarioStats _pullAgain;

    public DeviceSyncSessionScenario(ReadSampling sampling, ISyncClient client, ScenarioLoad load, DeviceBehaviour device, int seed)
    {
        _sampling = sampling;
        _client = client;
        _load = load;
        _device = device;
        _seed = seed;
        _pull = new ScenarioStats($"{load.Name}/pull");
        _push = new ScenarioStats($"{load.Name}/push");
        _pullAgain = new ScenarioStats($"{load.Name}/pull-again");
    }

    /// <summary>Books the pushed highlights go to: the seed has at least this many books.</summary>
    public const int Books = 1_000;

    public ReadKind Read => ReadKind.SyncSession;

    public Transport Transport => _client.Transport;

    public IReadOnlyList<ScenarioStats> StepStats => [_pull, _push, _pullAgain];

    private char Initial => Transport == Transport.Grpc ? 'g' : 'r';

    public SimulatedDevice DeviceFor(long sequence) => _sampling.RandomDevice(sequence, salt: 21 + (int)Transport);

    /// <summary>
    /// The key of the <paramref name="index"/>-th highlight pushed by a device in a session
    /// (<paramref name="session"/>: the transport's initial and the session's sequence, or <c>w</c> in warm-up).
    /// </summary>
    public static string KeyOf(int seed, SimulatedDevice device, string session, int index) =>
        string.Create(CultureInfo.InvariantCulture, $"sim{seed}-{device.Number}-{session}-{index}");

    public async ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken) =>
        (await RunAsync(device, "w", new SessionSteps(null, _device, 0), record: false, cancellationToken)).Outcome;

    public ValueTask<(SyncAttempt Outcome, int Attempts)> SessionAsync(
        SimulatedDevice device, long sequence, int second, DeviceRetryPipeline steps, CancellationToken cancellationToken) =>
        RunAsync(
            device, string.Create(CultureInfo.InvariantCulture, $"{Initial}{sequence}"),
            new SessionSteps(steps, _device, second), record: true, cancellationToken);

    private async ValueTask<(SyncAttempt Outcome, int Attempts)> RunAsync(
        SimulatedDevice device, string session, SessionSteps steps, bool record, CancellationToken cancellationToken)
    {
        var user = _sampling.UserOf(device);
        var (outcome, token, _) = await SyncPull.AllPagesAsync(
            steps, record ? _pull : null, _client, user, since: null, _load.PageSize, device, cancellationToken);
        if (!outcome.Ok)
        {
            return (outcome, steps.Attempts);
        }

        var (batch, expected) = Batch(user, device, session);
        outcome = await SyncPush.BatchAsync(steps, record ? _push : null, _client, user, batch, expected, device, cancellationToken);
        if (!outcome.Ok)
        {
            return (outcome, steps.Attempts);
        }

        (outcome, _, _) = await SyncPull.AllPagesAsync(
            steps, record ? _pullAgain : null, _client, user, token, _load.PageSize, device, cancellationToken);
        return (outcome, steps.Attempts);
    }

    private (List<NewHighlight> Batch, List<string> Ids) Batch(long userNo, SimulatedDevice device, string session)
    {
        var now = DateTimeOffset.UtcNow;
        var batch = new List<NewHighlight>(_load.PushBatch);
        var ids = new List<string>(_load.PushBatch);
        for (var i = 0; i < _load.PushBatch; i++)
        {
            var book = new BookNo(device.Pick(Books, salt: 100 + i) + 1);
            var key = HighlightKey.Parse(KeyOf(_seed, device, session, i));
            ids.Add(new HighlightId(new UserNo(userNo), book, key).ToString());
            batch.Add(NewHighlight.Drawn(
                device, i, book.Value, key.Value,
                string.Create(CultureInfo.InvariantCulture, $"Highlight {i} of session {session} on device {device.DeviceId}"), now));
        }

        return (batch, ids);
    }
}
