using System.Globalization;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Rest;

/// <summary>GET /v1/users/{n}/highlights: first page of a heavy user's highlights.</summary>
public sealed class RestHighlightsByUser(ReadSampling sampling, RestDeviceClient client) : IReadScenario
{
    public ReadKind Read => ReadKind.HighlightsByUser;

    public Transport Transport => Transport.Rest;

    public SimulatedDevice DeviceFor(long sequence) => sampling.RandomDevice(sequence, salt: 11);

    public ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = sampling.HeavyUserOf(device).UserNo;
        return client.GetAsync(string.Create(CultureInfo.InvariantCulture, $"/v1/users/{user}/highlights"), user, device, cancellationToken);
    }
}
