using System.Globalization;
using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Nodes;

namespace Kobo.Sync.SyncApi.Tests.Performance;

/// <summary>
/// The committed allocation budgets (<c>allocation-budgets.json</c> beside this file, read and written in
/// the source tree): the bytes the service allocates per request of each hot request, as last measured on
/// purpose. A figure fails above its budget plus <see cref="Margin"/>, and below <see cref="Floor"/> of
/// it, so a budget follows an improvement down instead of leaving room for a regression.
/// </summary>
internal static class AllocationBudgets
{
    /// <summary>How far above its budget a figure may go: the measurement's noise, not a real change (runs spread by about 2%).</summary>
    public const double Margin = 0.10;

    /// <summary>
    /// The margin's cap in bytes, so that a large figure (a push allocates about 45 KB) does not hide a
    /// per-request regression of a few KB inside its 10%.
    /// </summary>
    public const long MaxMarginBytes = 2048;

    /// <summary>Below this share of its budget a figure fails too, asking for a lower budget.</summary>
    public const double Floor = 0.70;

    /// <summary>Set to 1, the test writes the figures it measured into the budget file instead of checking them.</summary>
    public const string WriteVariable = "ALLOCATION_BUDGETS_WRITE";

    public const string RelativePath = "tests/SyncApi.Tests/Performance/allocation-budgets.json";

    public const string RerunCommand =
        WriteVariable + "=1 dotnet test tests/SyncApi.Tests -c Release --filter \"FullyQualifiedName~Performance.AllocationBudgetTests\"";

    private static readonly JsonSerializerOptions Indented = new() { WriteIndented = true, Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    public static bool WriteRequested => Environment.GetEnvironmentVariable(WriteVariable) == "1";

    public static string FilePath
    {
        get
        {
            for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
            {
                if (File.Exists(Path.Combine(dir.FullName, "Kobo.Sync.sln")))
                {
                    return Path.Combine(dir.FullName, RelativePath);
                }
            }

            throw new InvalidOperationException($"No Kobo.Sync.sln above {AppContext.BaseDirectory}.");
        }
    }

    /// <summary>Bytes per request by figure key, as committed.</summary>
    public static IReadOnlyDictionary<string, long> Read()
    {
        var root = JsonNode.Parse(File.ReadAllText(FilePath))!;
        return root["bytesPerRequest"]!.AsObject().ToDictionary(p => p.Key, p => p.Value!.GetValue<long>());
    }

    /// <summary>Replaces the budget file with <paramref name="measured"/> (rounded up to whole bytes).</summary>
    public static void Write(IReadOnlyDictionary<string, double> measured, string measuredOn)
    {
        var budgets = new JsonObject();
        foreach (var (key, bytes) in measured)
        {
            budgets[key] = (long)Math.Ceiling(bytes);
        }

        var root = new JsonObject
        {
            ["about"] = "Bytes the service allocates per request (process-wide, the highest of several runs when written), checked against the median of several runs by "
                + "AllocationBudgetTests with a margin of " + Margin.ToString("P0", CultureInfo.InvariantCulture)
                + " (at most " + MaxMarginBytes.ToString(CultureInfo.InvariantCulture) + " bytes) above and a floor at " + Floor.ToString("P0", CultureInfo.InvariantCulture)
                + " of each. Rewrite on purpose with: " + RerunCommand + " (tests/README.md, \"Allocation budgets\").",
            ["measuredOn"] = measuredOn,
            ["bytesPerRequest"] = budgets,
        };
        File.WriteAllText(FilePath, root.ToJsonString(Indented) + "\n");
    }

    /// <summary>What is wrong with <paramref name="measured"/> against <paramref name="budget"/>, or null.</summary>
    public static string? Verdict(HotRequest figure, double measured, long? budget, string runs)
    {
        if (budget is not { } allowed)
        {
            return $"{figure.Key}, {figure.Description}: {measured:N0} bytes/request (runs: {runs}) has no budget in {RelativePath}. "
                + $"Add it by re-measuring on purpose: {RerunCommand}, and commit the file.";
        }

        var ceiling = allowed + Math.Min(allowed * Margin, MaxMarginBytes);
        var change = (measured / allowed) - 1;
        if (measured > ceiling)
        {
            return $"{figure.Key}, {figure.Description}: allocated {measured:N0} bytes/request (runs: {runs}), "
                + $"{change:P0} over its budget of {allowed:N0} bytes/request (allowed up to {ceiling:N0}, the budget plus {Margin:P0}, at most {MaxMarginBytes:N0} bytes). "
                + "Something on this request's path now allocates more per request: find it (dotnet-trace's gc-verbose profile, or "
                + "dotnet-counters) and remove it. If the increase is intended, re-measure and rewrite the budgets on purpose: "
                + $"{RerunCommand}, then commit {RelativePath} saying why.";
        }

        if (measured < allowed * Floor)
        {
            return $"{figure.Key}, {figure.Description}: allocated {measured:N0} bytes/request (runs: {runs}), "
                + $"{-change:P0} under its budget of {allowed:N0} bytes/request (below {Floor:P0} of it). Well done: lower the budget so it "
                + "stays tight and a later regression cannot hide in the room left: re-measure and rewrite the budgets on purpose: "
                + $"{RerunCommand}, then commit {RelativePath} with the improvement.";
        }

        return null;
    }
}
