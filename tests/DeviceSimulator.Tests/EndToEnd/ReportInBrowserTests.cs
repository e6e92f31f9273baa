using System.Globalization;
using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Tests.Support;

namespace Kobo.Sync.DeviceSimulator.Tests.EndToEnd;

/// <summary>The smoke run's HTML report in a real browser: no console errors, its charts drawn, a screenshot kept with the run.</summary>
[Collection(EndToEndCollection.Name)]
public sealed class ReportInBrowserTests(SeededServiceFixture service)
{
    [FactWhenChromium]
    public async Task TheSmokeReportOpensInChromiumWithItsChartsDrawnAndNoConsoleErrors()
    {
        // Kept under load/results (git-ignored) like any run, with the screenshot beside the report.
        var results = Path.Combine(RepositoryRoot.Path, "load", "results",
            "smoke-test-" + DateTime.UtcNow.ToString("yyyyMMdd-HHmmss", CultureInfo.InvariantCulture));
        var exit = await service.RunSmokeAsync("--out", results);
        var result = ResultJson.Read(Path.Combine(results, "result.json"));
        Assert.True(result.Passed, result.Verdict);
        // PASS, or NOT PROVEN when the generator was saturated (the suite shares two cores): the page shows which.
        Assert.Equal(SlaGate.ExitCode(result), exit);

        var screenshot = Path.Combine(results, "report.png");
        var (dom, log) = await Chromium.RenderAsync(Path.Combine(results, "report.html"), screenshot);

        Assert.Contains(result.Verdict[..result.Verdict.IndexOf(':', StringComparison.Ordinal)], dom, StringComparison.Ordinal);
        Assert.All(SmokeRunTests.ReportCharts, chart => Assert.Contains($"aria-label=\"{chart}", dom));
        var scenarios = LoadProfile.Load(RepositoryRoot.Profile("smoke")).Scenarios.Count;
        Assert.True(dom.Split("<polyline").Length - 1 >= SmokeRunTests.ReportCharts.Length * scenarios, "every scenario's lines drawn");
        var console = log.Split('\n').Where(line => line.Contains("CONSOLE", StringComparison.Ordinal)).ToList();
        Assert.Empty(console);
        Assert.DoesNotContain("Failed to load resource", log);
        Assert.True(new FileInfo(screenshot).Length > 10_000, "a screenshot with something on it");
    }
}
