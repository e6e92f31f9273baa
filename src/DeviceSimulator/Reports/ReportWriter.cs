using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Reports;

/// <summary>Writes a run's <c>result.json</c>, <c>summary.md</c> and <c>report.html</c> into its results folder.</summary>
public static class ReportWriter
{
    public static string DefaultFolder(string root, DateTimeOffset started, string? suffix = null) =>
        Path.Combine(
            root,
            started.UtcDateTime.ToString(
                "yyyyMMdd-HHmmss", System.Globalization.CultureInfo.InvariantCulture) + (suffix is null ? string.Empty : "-" + suffix));

    public static void Write(string folder, RunResult result)
    {
        Directory.CreateDirectory(folder);
        File.WriteAllText(Path.Combine(folder, "result.json"), ResultJson.Serialize(result));
        File.WriteAllText(Path.Combine(folder, "summary.md"), MarkdownSummary.Render(result));
        File.WriteAllText(Path.Combine(folder, "report.html"), HtmlReport.Render(result));
    }
}
