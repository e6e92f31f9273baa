using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>
/// Every script a user runs (one with a <c>#!</c> line, under <c>load/</c> and <c>deploy/</c>; the files
/// other scripts source have none) answers <c>--help</c> with its usage on standard output and exit 0, and
/// an option it does not know with the option named and its usage on standard error, and exit 2, before it
/// starts anything.
/// </summary>
[Trait("Category", "Fast")]
public sealed class ScriptUsageTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(30);

    public static TheoryData<string> Scripts()
    {
        var data = new TheoryData<string>();
        foreach (var script in Found())
        {
            data.Add(script);
        }

        return data;
    }

    private static IEnumerable<string> Found() =>
        new[] { "load", "deploy" }
            .SelectMany(dir => Directory.GetFiles(Repository.PathOf(dir), "*.sh", SearchOption.AllDirectories))
            .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}.terraform{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
            .Where(f => File.ReadLines(f).FirstOrDefault()?.StartsWith("#!", StringComparison.Ordinal) == true)
            .Order(StringComparer.Ordinal)
            .Select(file => Path.GetRelativePath(Repository.Root, file).Replace('\\', '/'));

    [Fact]
    public void TheScriptsAreFound() =>
        Assert.Contains("load/bench/scale.sh", Found());

    [Theory]
    [MemberData(nameof(Scripts))]
    public void HelpPrintsTheUsageAndExitsZero(string script)
    {
        var outcome = ProcessRunner.Run("bash", [Repository.PathOf(script), "--help"], Repository.Root, Bound);

        Assert.True(outcome.ExitCode == 0, $"{script} --help: exit {outcome.ExitCode}: {outcome.StdErr}");
        Assert.True(outcome.StdOut.Split('\n', StringSplitOptions.RemoveEmptyEntries).Length >= 3, $"{script} --help printed: {outcome.StdOut}");
        Assert.DoesNotContain("#", outcome.StdOut.Split('\n')[0], StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(Scripts))]
    public void AnUnknownOptionIsNamedWithTheUsageAndExitsTwo(string script)
    {
        var usage = ProcessRunner.Run("bash", [Repository.PathOf(script), "--help"], Repository.Root, Bound).StdOut;

        var outcome = ProcessRunner.Run("bash", [Repository.PathOf(script), "--no-such-option"], Repository.Root, Bound);

        Assert.Equal(2, outcome.ExitCode);
        Assert.Contains(usage.Split('\n')[0], outcome.StdErr, StringComparison.Ordinal);
    }
}
