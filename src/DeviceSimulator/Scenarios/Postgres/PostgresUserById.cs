using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Postgres;

/// <summary>The user-by-id read's SQL straight on PostgreSQL.</summary>
public sealed class PostgresUserById(ReadSampling sampling, IDeviceReadStore store)
    : ReadScenario(ReadKind.UserById, Transport.Postgres, sampling)
{
    public override ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = new UserNo(Sampling.UserOf(device));
        return PostgresBaseline.RunAsync(async ct => await store.FindUserAsync(user, ct) is not null, cancellationToken);
    }
}
