using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Reading;
using Kobo.Sync.SyncApi.Infrastructure.Storage;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Postgres;

/// <summary>The highlights-by-book read's SQL straight on PostgreSQL.</summary>
public sealed class PostgresHighlightsByBook(ReadSampling sampling, PostgresDeviceReadStore store) : IReadScenario
{
    public ReadKind Read => ReadKind.HighlightsByBook;

    public Transport Transport => Transport.Postgres;

    public SimulatedDevice DeviceFor(long sequence) => sampling.RandomDevice(sequence, salt: 12);

    public ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var heavy = sampling.HeavyUserOf(device);
        var user = new UserNo(heavy.UserNo);
        var book = new BookNo(sampling.BookOf(device, heavy));
        return PostgresBaseline.RunAsync(
            async ct => await store.ListHighlightsAsync(user, HighlightRange.ForBook(user, book), DeviceReads.DefaultPageSize + 1, ct) is not null,
            cancellationToken);
    }
}
