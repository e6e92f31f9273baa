using Kobo.Sync.DeviceSimulator.Determinism;

namespace Kobo.Sync.DeviceSimulator.Devices;

/// <summary>
/// The devices of a run, or of one shard of it: shard i of n owns a disjoint, contiguous range of
/// device numbers, so n simulator processes together simulate every device once. A sync picks its
/// device from the range by hash, the superposition of many devices each waking on its own schedule.
/// </summary>
public sealed class DeviceFleet
{
    public DeviceFleet(long devices, int seed, Shard shard)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(devices, 1);
        Seed = seed;
        First = devices * shard.Index / shard.Count;
        Count = Math.Max(1, (devices * (shard.Index + 1) / shard.Count) - First);
    }

    public int Seed { get; }

    /// <summary>The first device number of this shard.</summary>
    public long First { get; }

    /// <summary>Devices in this shard.</summary>
    public long Count { get; }

    /// <summary>The device that makes the <paramref name="sequence"/>-th sync of a scenario.</summary>
    public SimulatedDevice ForSync(long sequence, int scenarioSalt) =>
        SimulatedDevice.Of(First + (long)(StableHash.Of(Seed, sequence, scenarioSalt) % (ulong)Count), Seed);

    /// <summary>The <paramref name="sequence"/>-th device of the shard, in order (every device once).</summary>
    public SimulatedDevice InOrder(long sequence) => SimulatedDevice.Of(First + (sequence % Count), Seed);
}

/// <summary>Shard <see cref="Index"/> (from 0) of <see cref="Count"/>; parsed from "i/n" with i from 1.</summary>
public readonly record struct Shard(int Index, int Count)
{
    public static Shard Whole { get; } = new(0, 1);

    public static bool TryParse(string? text, out Shard shard)
    {
        shard = Whole;
        var parts = text?.Split('/');
        if (parts is not { Length: 2 }
            || !int.TryParse(parts[0], out var i) || !int.TryParse(parts[1], out var n) || n < 1 || i < 1 || i > n)
        {
            return false;
        }

        shard = new Shard(i - 1, n);
        return true;
    }

    public override string ToString() => $"{Index + 1}/{Count}";
}
