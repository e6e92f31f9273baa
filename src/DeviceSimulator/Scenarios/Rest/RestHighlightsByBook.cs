using System.Globalization;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Rest;

/// <summary>GET /v1/users/{n}/books/{b}/highlights: first page of a heavy user's highlights in one of their books.</summary>
public sealed class RestHighlightsByBook(ReadSampling sampling, RestDeviceClient client)
    : ReadScenario(ReadKind.HighlightsByBook, Transport.Rest, sampling)
{
    public override ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = Sampling.HeavyUserOf(device);
        var book = Sampling.BookOf(device, user);
        return client.GetAsync(
            string.Create(CultureInfo.InvariantCulture, $"/v1/users/{user.UserNo}/books/{book}/highlights"),
            user.UserNo, device, cancellationToken);
    }
}
