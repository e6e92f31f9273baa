using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Postgres;

/// <summary>The highlights-by-book read's SQL straight on PostgreSQL.</summary>
public sealed class PostgresHighlightsByBook(ReadSampling sampling, IDeviceReadStore store)
    : ReadScenario(ReadKind.HighlightsByBook, Transport.Postgres, sampling)
{
    public override ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var heavy = Sampling.HeavyUserOf(device);
        var user = new UserNo(heavy.UserNo);
        var book = new BookNo(Sampling.BookOf(device, heavy));
        return PostgresBaseline.RunAsync(
            async ct => await store.ListHighlightsAsync(
                user, HighlightRange.ForBook(user, book), DeviceReads.DefaultPageSize + 1, ct) is not null,
            cancellationToken);
    }
}
