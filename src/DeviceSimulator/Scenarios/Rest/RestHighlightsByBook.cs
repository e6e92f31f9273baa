using System.Globalization;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Rest;

/// <summary>GET /v1/users/{n}/books/{b}/highlights: first page of a heavy user's highlights in one of their books.</summary>
public sealed class RestHighlightsByBook(ReadSampling sampling, RestDeviceClient client) : IReadScenario
{
    public ReadKind Read => ReadKind.HighlightsByBook;

    public Transport Transport => Transport.Rest;

    public SimulatedDevice DeviceFor(long sequence) => sampling.RandomDevice(sequence, salt: 12);

    public ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var user = sampling.HeavyUserOf(device);
        var book = sampling.BookOf(device, user);
        return client.GetAsync(
            string.Create(CultureInfo.InvariantCulture, $"/v1/users/{user.UserNo}/books/{book}/highlights"), user.UserNo, device, cancellationToken);
    }
}
