using System.Globalization;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Rest;

/// <summary>GET /v1/users/{n}/highlights: first page of a heavy user's highlights.</summary>
public sealed class RestHighlightsByUser(ReadSampling sampling, RestDeviceClient client)
    : ReadScenario(ReadKind.HighlightsByUser, Transport.Rest, sampling)
{
    public override ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = Sampling.HeavyUserOf(device).UserNo;
        return client.GetAsync(
            string.Create(CultureInfo.InvariantCulture, $"/v1/users/{user}/highlights"), user, device, cancellationToken);
    }
}
