using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Postgres;

/// <summary>
/// The highlights-by-user read's SQL straight on PostgreSQL: the service's first page (10 rows, plus one to see if more follow).
/// </summary>
public sealed class PostgresHighlightsByUser(ReadSampling sampling, IDeviceReadStore store)
    : ReadScenario(ReadKind.HighlightsByUser, Transport.Postgres, sampling)
{
    public override ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = new UserNo(Sampling.HeavyUserOf(device).UserNo);
        return PostgresBaseline.RunAsync(
            async ct => await store.ListHighlightsAsync(
                user, HighlightRange.ForUser(user), DeviceReads.DefaultPageSize + 1, ct) is not null,
            cancellationToken);
    }
}
