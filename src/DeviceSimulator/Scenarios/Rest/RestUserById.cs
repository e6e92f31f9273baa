using System.Globalization;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Rest;

/// <summary>GET /v1/users/{n}: every user once, in order.</summary>
public sealed class RestUserById(ReadSampling sampling, RestDeviceClient client) : IReadScenario
{
    public ReadKind Read => ReadKind.UserById;

    public Transport Transport => Transport.Rest;

    public SimulatedDevice DeviceFor(long sequence) => sampling.DeviceInOrder(sequence);

    public ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = sampling.UserOf(device);
        return client.GetAsync(string.Create(CultureInfo.InvariantCulture, $"/v1/users/{user}"), user, device, cancellationToken);
    }
}
