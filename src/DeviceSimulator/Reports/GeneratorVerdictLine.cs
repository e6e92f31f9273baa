using System.Globalization;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Reports;

/// <summary>The generator's verdict as the reports state it: saturated or not, and the figures it was judged on.</summary>
internal static class GeneratorVerdictLine
{
    /// <summary>How many dispatches the lag figures stand on (empty for results that did not keep them).</summary>
    public static string Dispatches(GeneratorStats generator) => generator.Lag is { } lag
        ? string.Create(CultureInfo.InvariantCulture, $" over {lag.Buckets.Sum(b => b[1]):N0} dispatches")
        : string.Empty;

    /// <summary>The run's generator verdict, or each shard's for a merged run.</summary>
    public static IEnumerable<string> Lines(RunResult result)
    {
        if (result.Generator.Verdict is { } verdict)
        {
            yield return Line("Generator", verdict);
        }

        foreach (var shard in result.ShardRuns.Where(s => s.Generator.Verdict is not null))
        {
            yield return Line($"Shard {shard.Shard}'s generator", shard.Generator.Verdict!);
        }
    }

    private static string Line(string whose, GeneratorVerdict verdict) =>
        $"{whose} {(verdict.Saturated ? "saturated" : "not saturated")}: {verdict.Summary()}.";
}
