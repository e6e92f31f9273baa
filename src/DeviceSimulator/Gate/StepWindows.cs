namespace Kobo.Sync.DeviceSimulator.Gate;

/// <summary>
/// How the gate cuts a long step into windows, so a step that degrades late (a leak, a vacuum, a
/// cache that fills) cannot hide behind its good first hour: windows of the step's own seconds,
/// [0, w), [w, 2w), ...; a last partial (shorter) window is judged on its own when it holds at least
/// <see cref="MinimumLastWindowSeconds"/>, otherwise it is folded into the window before it.
/// </summary>
public static class StepWindows
{
    /// <summary>A shorter last window holds too few syncs to judge a p99 on; it joins the previous one.</summary>
    public const int MinimumLastWindowSeconds = 60;

    /// <summary>
    /// The windows of a step of <paramref name="stepSeconds"/>, as offsets from the step's start;
    /// empty when the step is not longer than one window (the step's own check covers it).
    /// </summary>
    public static IReadOnlyList<(double From, double To)> Split(double stepSeconds, int windowSeconds)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(windowSeconds, 1);
        var windows = new List<(double From, double To)>();
        for (var from = 0.0; from < stepSeconds; from += windowSeconds)
        {
            windows.Add((from, Math.Min(from + windowSeconds, stepSeconds)));
        }

        var last = windows.Count == 0 ? 0 : windows[^1].To - windows[^1].From;
        if (windows.Count > 1 && last < windowSeconds && last < MinimumLastWindowSeconds)
        {
            var to = windows[^1].To;
            windows.RemoveAt(windows.Count - 1);
            windows[^1] = (windows[^1].From, to);
        }

        return windows.Count > 1 ? windows : [];
    }
}
