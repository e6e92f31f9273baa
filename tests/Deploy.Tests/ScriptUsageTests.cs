using System.Runtime.Versioning;
using System.Text.RegularExpressions;
using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>
/// Every shell script a user runs under <c>load/</c> and <c>deploy/</c> answers <c>--help</c> with its usage
/// on standard output and exit 0, and an option it does not know with the option named and its usage on
/// standard error, exit 2 and nothing on standard output, before it starts anything. Each runs as a user
/// runs it (by its path, through its <c>#!</c> line) from an empty directory, with nothing on PATH but
/// bash, sed and dirname and its state directories pointed into that directory: a script that built,
/// started PostgreSQL, reached the network or made a directory before reading its command line fails here.
/// </summary>
[UnsupportedOSPlatform("windows")] // the scripts, their #! lines and their modes are for Linux
public sealed class ScriptUsageTests(ScriptUsageTests.Sandbox sandbox) : IClassFixture<ScriptUsageTests.Sandbox>
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The files under load/ and deploy/ that other scripts source and no user runs: helpers with no
    /// command line of their own. Every other *.sh there is a script a user runs and is held to the rule;
    /// a new sourced file must be named here (and is checked to be sourced, not runnable).
    /// </summary>
    private static readonly string[] Sourced =
    [
        "deploy/local-cluster/backup.sh", // cluster.sh's backup, verify, info, schedule and restore
        "deploy/local-cluster/drill.sh", // cluster.sh's restore-drill
        "deploy/postgres/settings.sh", // the large-data PostgreSQL settings: cluster.sh, scale.sh, release-gate.sh
        "load/bench/lib.sh", // the benches' shared loads and measurements
        "load/bench/local-stack.sh", // the local PostgreSQL and service of scale.sh and release-gate.sh
        "load/bench/scale-settings.sh", // scale.sh's settings part
    ];

    /// <summary>Scripts driven by a command (<c>cluster.sh up</c>): <c>help</c> is their <c>--help</c>.</summary>
    private static readonly string[] WithCommands =
    [
        "deploy/local-cluster/cluster.sh",
        "deploy/local-cluster/exporters.sh",
        "deploy/local-haproxy/rolling.sh",
    ];

    public static TheoryData<string> Scripts() => new(Runnable());

    public static TheoryData<string> CommandScripts() => new(WithCommands);

    public static TheoryData<string> SourcedFiles() => new(Sourced);

    private static IEnumerable<string> ShellFiles() =>
        new[] { "load", "deploy" }
            .SelectMany(dir => Directory.GetFiles(Repository.PathOf(dir), "*.sh", SearchOption.AllDirectories))
            .Select(file => Path.GetRelativePath(Repository.Root, file).Replace('\\', '/'))
            .Where(file => !file.Split('/').Contains(".terraform"))
            .Order(StringComparer.Ordinal);

    private static IEnumerable<string> Runnable() => ShellFiles().Except(Sourced);

    [Fact]
    public void TheScriptsAreFoundByTheirPlaceInTheRepository()
    {
        var runnable = Runnable().ToList();

        Assert.Contains("load/bench/scale.sh", runnable);
        Assert.Contains("load/release-gate.sh", runnable);
        Assert.Contains("deploy/local-cluster/cluster.sh", runnable);
        Assert.DoesNotContain("load/bench/lib.sh", runnable);
        Assert.Subset(runnable.ToHashSet(), WithCommands.ToHashSet());
    }

    [Theory]
    [MemberData(nameof(Scripts))]
    public void AScriptAUserRunsIsExecutableBash(string script)
    {
        Assert.Equal("#!/usr/bin/env bash", File.ReadLines(Repository.PathOf(script)).First());
        Assert.True(
            (File.GetUnixFileMode(Repository.PathOf(script)) & UnixFileMode.UserExecute) != 0,
            $"{script} is not executable (git update-index --chmod=+x {script})");
    }

    [Theory]
    [MemberData(nameof(SourcedFiles))]
    public void ASourcedFileIsSourcedByAScriptAndNotRunnable(string file)
    {
        Assert.True(File.Exists(Repository.PathOf(file)), $"{file} is listed as sourced but does not exist");
        Assert.False(File.ReadLines(Repository.PathOf(file)).First().StartsWith("#!", StringComparison.Ordinal), $"{file} has a #! line: is it run?");
        Assert.True(
            (File.GetUnixFileMode(Repository.PathOf(file)) & UnixFileMode.UserExecute) == 0,
            $"{file} is executable: a user would run it");
        var sourcing = new Regex($@"^\s*(?:\.|source)\s+""?[^\s""]*\b{Regex.Escape(Path.GetFileName(file))}""?\s*$", RegexOptions.Multiline);
        Assert.True(
            ShellFiles().Where(other => other != file).Any(other => sourcing.IsMatch(File.ReadAllText(Repository.PathOf(other)))),
            $"no script under load/ or deploy/ sources {file}");
    }

    [Theory]
    [MemberData(nameof(Scripts))]
    public void HelpPrintsTheUsageOnStandardOutputAndExitsZero(string script)
    {
        var outcome = sandbox.Run(script, "--help");

        Assert.True(outcome.ExitCode == 0, $"{script} --help: exit {outcome.ExitCode}: {outcome.StdErr}");
        Assert.Equal(string.Empty, outcome.StdErr);
        Assert.True(outcome.StdOut.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length >= 3, $"{script} --help printed: {outcome.StdOut}");
        Assert.True(
            outcome.StdOut.Contains(Path.GetFileName(script), StringComparison.Ordinal) || outcome.StdOut.Contains("usage", StringComparison.OrdinalIgnoreCase),
            $"{script} --help names neither the script nor a usage: {outcome.StdOut}");
        Assert.DoesNotContain(outcome.StdOut.Split('\n'), line => line.StartsWith('#'));
    }

    [Theory]
    [MemberData(nameof(Scripts))]
    public void AnUnknownOptionIsNamedWithTheUsageOnStandardErrorAndExitsTwo(string script)
    {
        var usage = sandbox.Run(script, "--help").StdOut;

        var outcome = sandbox.Run(script, "--no-such-option");

        Assert.True(outcome.ExitCode == 2, $"{script} --no-such-option: exit {outcome.ExitCode}: {outcome.StdErr}");
        Assert.Equal(string.Empty, outcome.StdOut);
        Assert.Contains("--no-such-option", outcome.StdErr, StringComparison.Ordinal);
        Assert.Contains(usage.Trim(), outcome.StdErr, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(CommandScripts))]
    public void TheHelpCommandPrintsTheSameUsage(string script)
    {
        var outcome = sandbox.Run(script, "help");

        Assert.True(outcome.ExitCode == 0, $"{script} help: exit {outcome.ExitCode}: {outcome.StdErr}");
        Assert.Equal(sandbox.Run(script, "--help").StdOut, outcome.StdOut);
    }

    [Theory]
    [MemberData(nameof(CommandScripts))]
    public void AnUnknownCommandNoCommandOrAnArgumentACommandDoesNotTakeExitsTwoWithTheUsage(string script)
    {
        var usage = sandbox.Run(script, "--help").StdOut.Trim();

        string[][] commandLines = [["no-such-command"], [], ["status", "--no-such-option"]];
        foreach (var arguments in commandLines)
        {
            var outcome = sandbox.Run(script, arguments);

            var typed = $"{script} {string.Join(' ', arguments)}";
            Assert.True(outcome.ExitCode == 2, $"{typed}: exit {outcome.ExitCode}: {outcome.StdErr}");
            Assert.True(outcome.StdOut.Length == 0, $"{typed} printed: {outcome.StdOut}");
            Assert.Contains(usage, outcome.StdErr, StringComparison.Ordinal);
        }
    }

    /// <summary>
    /// A directory of the test run's own: <c>bin/</c> holds the only tools a usage may need, and each run
    /// gets an empty working directory, checked to be still empty afterwards, whose <c>state/</c> the
    /// scripts' state directories point into.
    /// </summary>
    public sealed class Sandbox : IDisposable
    {
        private static readonly string[] UsageTools = ["bash", "sed", "dirname"];

        private readonly string _root = Directory.CreateTempSubdirectory("kobo-script-usage-").FullName;
        private int _runs;

        public Sandbox()
        {
            var bin = Directory.CreateDirectory(Path.Combine(_root, "bin")).FullName;
            foreach (var tool in UsageTools)
            {
                var found = (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
                    .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
                    .Select(dir => Path.Combine(dir, tool))
                    .FirstOrDefault(File.Exists) ?? throw new InvalidOperationException($"{tool} is not on PATH");
                File.CreateSymbolicLink(Path.Combine(bin, tool), found);
            }
        }

        public ProcessRunner.Outcome Run(string script, params string[] arguments)
        {
            var work = Directory.CreateDirectory(Path.Combine(_root, $"run-{Interlocked.Increment(ref _runs)}")).FullName;
            var state = Path.Combine(work, "state");
            var environment = new Dictionary<string, string?>
            {
                ["PATH"] = Path.Combine(_root, "bin"),
                ["HOME"] = work,
                ["TMPDIR"] = work,
                ["KOBO_CLUSTER_DIR"] = state,
                ["KOBO_HAPROXY_DIR"] = state,
            };

            var outcome = ProcessRunner.Run(Repository.PathOf(script), arguments, work, Bound, environment);

            Assert.True(
                Directory.GetFileSystemEntries(work).Length == 0,
                $"{script} {string.Join(' ', arguments)} left {string.Join(", ", Directory.GetFileSystemEntries(work, "*", SearchOption.AllDirectories))}");
            return outcome;
        }

        public void Dispose() => Directory.Delete(_root, recursive: true);
    }
}
