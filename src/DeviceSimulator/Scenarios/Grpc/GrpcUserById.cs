using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Grpc;

/// <summary>SyncService/GetUser: every user once, in order.</summary>
public sealed class GrpcUserById(ReadSampling sampling, GrpcDeviceClient client)
    : ReadScenario(ReadKind.UserById, Transport.Grpc, sampling)
{
    public override ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = Sampling.UserOf(device);
        return client.CallAsync(
            static (c, r, o) => c.GetUserAsync(r, o), new GetUserRequest { UserNo = user }, user, device, cancellationToken);
    }
}
