namespace Kobo.Sync.DeviceSimulator.Determinism;

/// <summary>
/// SplitMix64 mixing: a well-spread 64-bit hash of a few numbers that is the same on every run and
/// machine (unlike <see cref="HashCode"/>, randomised per process). Everything the simulator derives
/// from (seed, number) goes through it, so no per-user or per-device state has to be kept.
/// </summary>
public static class StableHash
{
    public static ulong Mix(ulong value)
    {
        value += 0x9E3779B97F4A7C15;
        value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9;
        value = (value ^ (value >> 27)) * 0x94D049BB133111EB;
        return value ^ (value >> 31);
    }

    public static ulong Of(long a, long b) => Mix(Mix((ulong)a) ^ (ulong)b);

    public static ulong Of(long a, long b, long c) => Mix(Of(a, b) ^ (ulong)c);

    /// <summary>A uniform double in [0, 1) from a hash.</summary>
    public static double Unit(ulong hash) => (hash >> 11) * (1.0 / (1UL << 53));

    /// <summary>A seed for <see cref="Random"/> (whose seeded sequence is stable across runs).</summary>
    public static int SeedOf(long a, long b) => (int)(Of(a, b) & int.MaxValue);
}
