using System.Globalization;
using Kobo.Sync.DeviceSimulator.Determinism;

namespace Kobo.Sync.DeviceSimulator.Devices;

/// <summary>
/// A simulated e-reader, derived on demand from its number and the run seed: nothing is stored per
/// device, so ten million devices cost no more memory than ten. Its sync schedule (an interval
/// between 15 minutes and 2 hours, and where in it the device wakes) and its jitter source follow
/// from the same hash, so the same device behaves the same in every run with the same seed.
/// </summary>
public readonly record struct SimulatedDevice(long Number, ulong Hash)
{
    public static SimulatedDevice Of(long number, int seed) => new(number, StableHash.Of(seed, number));

    /// <summary>The device id in its tokens (the <c>did</c> claim).</summary>
    public string DeviceId => string.Create(CultureInfo.InvariantCulture, $"sim-{Number}");

    /// <summary>How often this device syncs on its own.</summary>
    public TimeSpan SyncInterval => TimeSpan.FromMinutes(15 + (StableHash.Unit(StableHash.Mix(Hash ^ 1)) * 105));

    /// <summary>Where in its interval the device first wakes.</summary>
    public TimeSpan SyncPhase => SyncInterval * StableHash.Unit(StableHash.Mix(Hash ^ 2));

    /// <summary>A seed for this device's retry jitter.</summary>
    public int JitterSeed => (int)(StableHash.Mix(Hash ^ 3) & int.MaxValue);

    /// <summary>A number in [0, <paramref name="count"/>) picked by this device (its user, its book).</summary>
    public int Pick(int count, int salt = 0) => (int)(StableHash.Mix(Hash ^ (ulong)(salt + 4)) % (ulong)count);
}
