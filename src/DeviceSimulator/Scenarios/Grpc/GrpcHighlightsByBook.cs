using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Grpc;

/// <summary>SyncService/ListBookHighlights: first page of a heavy user's highlights in one of their books.</summary>
public sealed class GrpcHighlightsByBook(ReadSampling sampling, GrpcDeviceClient client)
    : ReadScenario(ReadKind.HighlightsByBook, Transport.Grpc, sampling)
{
    public override ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = Sampling.HeavyUserOf(device);
        var request = new ListBookHighlightsRequest { UserNo = user.UserNo, BookNo = Sampling.BookOf(device, user) };
        return client.CallAsync(static (c, r, o) => c.ListBookHighlightsAsync(r, o), request, user.UserNo, device, cancellationToken);
    }
}
