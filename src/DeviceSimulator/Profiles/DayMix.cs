using Kobo.Sync.DeviceSimulator.Devices;

namespace Kobo.Sync.DeviceSimulator.Profiles;

/// <summary>What one scheduled sync of a fleet's day is.</summary>
public enum DaySyncKind
{
    /// <summary>A device that synced on its last schedule: one pull from its token, which mostly finds nothing new.</summary>
    Scheduled,

    /// <summary>
    /// A reader's device: pull, push what was read offline (highlights, a note, a deletion), put a reading state, pull again.
    /// </summary>
    Active,

    /// <summary>A new device's first sync: the user's whole library and highlights, page after page.</summary>
    FirstSync,

    /// <summary>A device back from months in a drawer: every highlight of a heavy reader since its old token.</summary>
    Drawer,
}

/// <summary>
/// The share of each kind of sync in a fleet's day, in percent (adding up to 100): by default 80
/// scheduled syncs that find nothing new, 15 active readers' syncs, 4.5 first syncs of new devices
/// and 0.5 devices back from a drawer. A device's kind follows from its hash, so a run's mix is the
/// profile's to within sampling noise and the same in every run with the same seed.
/// </summary>
public sealed record DayMix
{
    public double Scheduled { get; init; } = 80;

    public double Active { get; init; } = 15;

    public double FirstSync { get; init; } = 4.5;

    public double Drawer { get; init; } = 0.5;

    /// <summary>Resolution of the draw: a device's kind is decided in steps of 1/100,000.</summary>
    private const int Steps = 100_000;

    public DaySyncKind KindOf(SimulatedDevice device)
    {
        var draw = device.Pick(Steps, salt: 31) / (double)(Steps / 100);
        return draw < Scheduled ? DaySyncKind.Scheduled
            : draw < Scheduled + Active ? DaySyncKind.Active
            : draw < Scheduled + Active + FirstSync ? DaySyncKind.FirstSync
            : DaySyncKind.Drawer;
    }

    public IEnumerable<string> Validate()
    {
        if (Scheduled < 0 || Active < 0 || FirstSync < 0 || Drawer < 0 || Math.Abs(Scheduled + Active + FirstSync + Drawer - 100) > 1e-9)
        {
            yield return "mix: scheduled, active, firstSync and drawer must be 0 or more and add up to 100";
        }
    }
}
