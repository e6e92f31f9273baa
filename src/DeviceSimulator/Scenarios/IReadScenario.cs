using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios;

/// <summary>
/// One scenario: a device read over one transport. <see cref="AttemptAsync"/> is one attempt; the engine adds the device's retries.
/// </summary>
public interface IReadScenario
{
    ReadKind Read { get; }

    Transport Transport { get; }

    /// <summary>The device making the <paramref name="sequence"/>-th sync of this scenario.</summary>
    SimulatedDevice DeviceFor(long sequence);

    ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken);
}
