using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Infrastructure.Storage;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Postgres;

/// <summary>The user-by-id read's SQL straight on PostgreSQL.</summary>
public sealed class PostgresUserById(ReadSampling sampling, PostgresDeviceReadStore store) : IReadScenario
{
    public ReadKind Read => ReadKind.UserById;

    public Transport Transport => Transport.Postgres;

    public SimulatedDevice DeviceFor(long sequence) => sampling.DeviceInOrder(sequence);

    public ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = new UserNo(sampling.UserOf(device));
        return PostgresBaseline.RunAsync(async ct => await store.FindUserAsync(user, ct) is not null, cancellationToken);
    }
}
