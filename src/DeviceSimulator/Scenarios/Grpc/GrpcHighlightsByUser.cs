using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Grpc;

/// <summary>SyncService/ListUserHighlights: first page of a heavy user's highlights.</summary>
public sealed class GrpcHighlightsByUser(ReadSampling sampling, GrpcDeviceClient client)
    : ReadScenario(ReadKind.HighlightsByUser, Transport.Grpc, sampling)
{
    public override ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = Sampling.HeavyUserOf(device).UserNo;
        return client.CallAsync(
            static (c, r, o) => c.ListUserHighlightsAsync(r, o),
            new ListUserHighlightsRequest { UserNo = user },
            user,
            device,
            cancellationToken);
    }
}
