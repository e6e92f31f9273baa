using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Sync;

/// <summary>
/// Many new devices doing their first full sync at once, over REST or gRPC (a launch, a firmware update that resets
/// devices): each sync is a device never seen before (the devices in order, so no device repeats
/// within a run) pulling every page of its user's changes with no token, until <c>hasMore</c> is
/// false. Its step statistics count every page and the changes received.
/// </summary>
public sealed class FirstSyncStormScenario(ReadSampling sampling, ISyncClient client, ScenarioLoad load, DeviceBehaviour behaviour)
    : ISyncSessionScenario
{
    private readonly ScenarioStats _pages = new($"{load.Name}/page");

    public ReadKind Read => ReadKind.FirstSyncStorm;

    public Transport Transport => client.Transport;

    public IReadOnlyList<ScenarioStats> StepStats => [_pages];

    public SimulatedDevice DeviceFor(long sequence) => sampling.DeviceInOrder(sequence);

    public async ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken) =>
        (await SyncPull.AllPagesAsync(
            new SessionSteps(null, behaviour, 0), null, client, sampling.UserOf(device),
            since: null, load.PageSize, device, cancellationToken)).Outcome;

    public async ValueTask<(SyncAttempt Outcome, int Attempts)> SessionAsync(
        SimulatedDevice device, long sequence, int second, DeviceRetryPipeline steps, CancellationToken cancellationToken)
    {
        var session = new SessionSteps(steps, behaviour, second);
        var (outcome, _, _) = await SyncPull.AllPagesAsync(
            session, _pages, client, sampling.UserOf(device), since: null, load.PageSize, device, cancellationToken);
        return (outcome, session.Attempts);
    }
}
