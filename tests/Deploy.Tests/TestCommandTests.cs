using System.Text.RegularExpressions;
using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>The test command (tests/run.sh, which .ci/run calls) runs every test project of the repository.</summary>
public sealed partial class TestCommandTests
{
    [Fact]
    public void TheTestCommandRunsEveryTestProject()
    {
        var script = File.ReadAllText(Repository.PathOf("tests/run.sh"));
        var run = TestedProject().Matches(script).Select(m => m.Groups[1].Value).ToHashSet(StringComparer.Ordinal);
        var projects = Directory.EnumerateDirectories(Repository.PathOf("tests"))
            .Where(dir => Directory.EnumerateFiles(dir, "*.csproj").Any())
            .Select(Path.GetFileName)
            .ToList();

        Assert.NotEmpty(projects);
        Assert.All(projects, project => Assert.True(run.Contains(project!), $"tests/run.sh does not run tests/{project}"));
    }

    [GeneratedRegex(@"\btests [a-z]+ tests/([A-Za-z.]+)\b")]
    private static partial Regex TestedProject();
}
