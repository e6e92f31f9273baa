using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.SyncApi.Grpc.V1;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Grpc;

/// <summary>SyncService/ListBookHighlights: first page of a heavy user's highlights in one of their books.</summary>
public sealed class GrpcHighlightsByBook(ReadSampling sampling, GrpcDeviceClient client) : IReadScenario
{
    public ReadKind Read => ReadKind.HighlightsByBook;

    public Transport Transport => Transport.Grpc;

    public SimulatedDevice DeviceFor(long sequence) => sampling.RandomDevice(sequence, salt: 12);

    public ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = sampling.HeavyUserOf(device);
        var request = new ListBookHighlightsRequest { UserNo = user.UserNo, BookNo = sampling.BookOf(device, user) };
        return client.CallAsync("ListBookHighlights", request, HighlightPage.Parser, user.UserNo, device, cancellationToken);
    }
}
