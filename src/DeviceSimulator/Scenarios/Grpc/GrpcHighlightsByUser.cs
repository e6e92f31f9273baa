using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.SyncApi.Grpc.V1;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Grpc;

/// <summary>SyncService/ListUserHighlights: first page of a heavy user's highlights.</summary>
public sealed class GrpcHighlightsByUser(ReadSampling sampling, GrpcDeviceClient client) : IReadScenario
{
    public ReadKind Read => ReadKind.HighlightsByUser;

    public Transport Transport => Transport.Grpc;

    public SimulatedDevice DeviceFor(long sequence) => sampling.RandomDevice(sequence, salt: 11);

    public ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = sampling.HeavyUserOf(device).UserNo;
        return client.CallAsync("ListUserHighlights", new ListUserHighlightsRequest { UserNo = user }, HighlightPage.Parser, user, device, cancellationToken);
    }
}
