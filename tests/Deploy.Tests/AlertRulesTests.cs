using System.Text.RegularExpressions;
using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>
/// The alerting rules under deploy/alerts: valid for Prometheus, each fired and kept quiet by its
/// <c>promtool test rules</c> cases, routed by a valid Alertmanager configuration, and each linked to a
/// runbook section of docs/operations.md. promtool and amtool come with Debian's prometheus and
/// prometheus-alertmanager packages (.ci/run installs both): missing, the tests fail naming them.
/// </summary>
public sealed partial class AlertRulesTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromMinutes(3);

    private static string AlertsDirectory => Repository.PathOf("deploy/alerts");

    private static IReadOnlyList<string> RuleFiles =>
        Directory.GetFiles(AlertsDirectory, "*.rules.yml").Order(StringComparer.Ordinal).ToList();

    private static IReadOnlyList<string> TestFiles =>
        Directory.GetFiles(Path.Combine(AlertsDirectory, "tests"), "*.test.yml").Order(StringComparer.Ordinal).ToList();

    /// <summary>Every alert's name, from every rule file.</summary>
    public static IReadOnlyList<string> AlertNames =>
        RuleFiles.SelectMany(f => AlertLine().Matches(File.ReadAllText(f)).Select(m => m.Groups[1].Value)).ToList();

    [Fact]
    public void TheRuleFilesAreValid()
    {
        var outcome = ProcessRunner.Run(Tool("promtool", "prometheus"), ["check", "rules", .. RuleFiles], AlertsDirectory, Bound);

        Assert.True(outcome.ExitCode == 0, $"promtool check rules: {outcome.StdOut}{outcome.StdErr}");
        Assert.True(AlertNames.Count >= 15, $"only {AlertNames.Count} alerts in deploy/alerts");
    }

    [Fact]
    public void EveryRuleUnitTestPasses()
    {
        var outcome = ProcessRunner.Run(Tool("promtool", "prometheus"), ["test", "rules", .. TestFiles], AlertsDirectory, Bound);

        Assert.True(outcome.ExitCode == 0, $"promtool test rules: {outcome.StdOut}{outcome.StdErr}");
        Assert.Equal(TestFiles.Count, Regex.Matches(outcome.StdOut + outcome.StdErr, "SUCCESS").Count);
    }

    [Fact]
    public void EveryAlertHasACaseThatFiresItAndOneThatKeepsItQuiet()
    {
        var checks = TestFiles.SelectMany(f => AlertCheck().Matches(File.ReadAllText(f)))
            .Select(m => (Alert: m.Groups[1].Value, Quiet: m.Groups[2].Value.Trim() == "[]"))
            .ToList();

        Assert.All(AlertNames, alert =>
        {
            Assert.True(checks.Any(c => c.Alert == alert && !c.Quiet), $"no promtool case fires {alert}");
            Assert.True(checks.Any(c => c.Alert == alert && c.Quiet), $"no promtool case keeps {alert} quiet");
        });
    }

    [Fact]
    public void EveryAlertPagesOrTicketsAndLinksToItsRunbookSection()
    {
        var guide = File.ReadAllText(Repository.PathOf("docs/operations.md"));
        var sections = RunbookHeading().Matches(guide).Select(m => m.Groups[1].Value).ToHashSet(StringComparer.Ordinal);
        Assert.Contains("## Alerts and runbooks", guide, StringComparison.Ordinal);

        foreach (var file in RuleFiles)
        {
            var rules = File.ReadAllText(file).Split("- alert: ", StringSplitOptions.None).Skip(1);
            foreach (var rule in rules)
            {
                var name = rule[..rule.IndexOf('\n', StringComparison.Ordinal)].Trim();
                Assert.Matches(@"\n\s+severity: (page|ticket)\n", rule);
                Assert.Contains($"runbook_url: \"docs/operations.md#{name.ToLowerInvariant()}\"", rule, StringComparison.Ordinal);
                Assert.True(sections.Contains(name), $"docs/operations.md has no runbook section '### {name}'");
            }
        }
    }

    [Fact]
    public void TheAlertmanagerConfigurationIsValidAndRoutesPagesAndTicketsApart()
    {
        var config = Path.Combine(AlertsDirectory, "alertmanager.yml");
        var outcome = ProcessRunner.Run(Tool("amtool", "prometheus-alertmanager"), ["check-config", config], AlertsDirectory, Bound);
        Assert.True(outcome.ExitCode == 0, $"amtool check-config: {outcome.StdOut}{outcome.StdErr}");

        foreach (var (severity, receiver) in new[] { ("page", "page"), ("ticket", "ticket") })
        {
            var routed = ProcessRunner.Run(
                Tool("amtool", "prometheus-alertmanager"),
                ["config", "routes", "test", $"--config.file={config}", "alertname=KoboSyncAnything", $"severity={severity}"],
                AlertsDirectory,
                Bound);
            Assert.True(routed.ExitCode == 0, $"amtool config routes test: {routed.StdOut}{routed.StdErr}");
            Assert.Equal(receiver, routed.StdOut.Trim());
        }
    }

    [Fact]
    public void ThePrometheusConfigurationLoadsTheRulesAndScrapesTheDatabaseExporters()
    {
        var config = Repository.PathOf("deploy/dashboards/prometheus.yml");
        var outcome = ProcessRunner.Run(Tool("promtool", "prometheus"), ["check", "config", config], Repository.PathOf("deploy/dashboards"), Bound);
        Assert.True(outcome.ExitCode == 0, $"promtool check config: {outcome.StdOut}{outcome.StdErr}");

        var text = File.ReadAllText(config);
        foreach (var job in new[] { "kobo-sync", "patroni", "postgres", "node", "tls" })
        {
            Assert.Contains($"job_name: {job}\n", text, StringComparison.Ordinal);
        }

        // promtool checks every rule file the configuration names: it names them all.
        Assert.Contains($"SUCCESS: {RuleFiles.Count} rule files found", outcome.StdOut + outcome.StdErr, StringComparison.Ordinal);
    }

    private static string Tool(string tool, string package) =>
        new[] { "/usr/bin", "/usr/local/bin" }.Select(d => Path.Combine(d, tool)).FirstOrDefault(File.Exists)
        ?? throw new InvalidOperationException($"'{tool}' is not installed. It comes with Debian's {package} package (.ci/run installs it).");

    [GeneratedRegex(@"^\s+- alert: (\S+)\s*$", RegexOptions.Multiline)]
    private static partial Regex AlertLine();

    /// <summary>An <c>alertname</c> in a promtool test and what it expects: <c>[]</c> (quiet) or a list.</summary>
    [GeneratedRegex(@"alertname: (\S+)\s*\n\s+exp_alerts:(.*)")]
    private static partial Regex AlertCheck();

    [GeneratedRegex(@"^### (KoboSync\w+)\s*$", RegexOptions.Multiline)]
    private static partial Regex RunbookHeading();
}
