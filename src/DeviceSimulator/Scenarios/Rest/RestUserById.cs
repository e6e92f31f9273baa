using System.Globalization;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Rest;

/// <summary>GET /v1/users/{n}: every user once, in order.</summary>
public sealed class RestUserById(ReadSampling sampling, RestDeviceClient client)
    : ReadScenario(ReadKind.UserById, Transport.Rest, sampling)
{
    public override ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = Sampling.UserOf(device);
        return client.GetAsync(string.Create(CultureInfo.InvariantCulture, $"/v1/users/{user}"), user, device, cancellationToken);
    }
}
