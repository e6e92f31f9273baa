using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios;

/// <summary>
/// What every read scenario shares: its read and transport, and which device makes each sync (by
/// the read's sampling: user-by-id walks the devices, and so the users, in order; the highlight reads
/// pick a device at random). A scenario adds only how one attempt reaches the data.
/// </summary>
public abstract class ReadScenario(ReadKind read, Transport transport, ReadSampling sampling) : IReadScenario
{
    public ReadKind Read => read;

    public Transport Transport => transport;

    protected ReadSampling Sampling => sampling;

    public SimulatedDevice DeviceFor(long sequence) =>
        read == ReadKind.UserById ? sampling.DeviceInOrder(sequence) : sampling.RandomDevice(sequence, salt: 11 + (int)read);

    public abstract ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken);
}
