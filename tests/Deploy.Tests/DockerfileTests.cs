using System.Text.RegularExpressions;
using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>
/// Static checks of the production Dockerfile (no container engine or hadolint runs here):
/// multi-stage, unprivileged, health-checked, multi-architecture, configured by environment only.
/// </summary>
[Trait("Category", "Fast")]
public sealed partial class DockerfileTests
{
    private static IReadOnlyList<Dockerfile.Instruction> Instructions => Dockerfile.Current.Instructions;

    private static IReadOnlyList<Dockerfile.Instruction> FinalStage => Dockerfile.Current.FinalStage;

    [Fact]
    public void TheImageIsBuiltInStagesAndShipsOnlyTheRuntime()
    {
        var stages = Dockerfile.Current.Stages;

        Assert.True(stages.Count >= 2, "expected a build stage and a runtime stage");
        Assert.Contains("dotnet/sdk", stages[0][0].Arguments, StringComparison.Ordinal);
        Assert.Contains("dotnet/aspnet", stages[^1][0].Arguments, StringComparison.Ordinal);
        Assert.Contains(FinalStage, i => i.Keyword == "COPY" && i.Arguments.Contains("--from=build", StringComparison.Ordinal));
        Assert.DoesNotContain(FinalStage, i => i.Keyword == "RUN" && i.Arguments.Contains("dotnet ", StringComparison.Ordinal));
    }

    [Fact]
    public void TheServiceRunsAsAnUnprivilegedUser()
    {
        var user = Assert.Single(FinalStage, i => i.Keyword == "USER").Arguments.Split(':')[0];

        Assert.NotEqual("root", user);
        Assert.NotEqual("0", user);
        Assert.DoesNotContain(FinalStage.SkipWhile(i => i.Keyword != "USER"), i => i.Keyword == "USER" && i.Arguments.StartsWith("root", StringComparison.Ordinal));
    }

    [Fact]
    public void TheContainerHealthCheckProbesLiveness()
    {
        var check = Assert.Single(FinalStage, i => i.Keyword == "HEALTHCHECK");

        Assert.Contains("/healthz/live", check.Arguments, StringComparison.Ordinal);
        Assert.Contains("--timeout=", check.Arguments, StringComparison.Ordinal);
        Assert.Contains(FinalStage, i => i.Keyword == "RUN" && i.Arguments.Contains("curl", StringComparison.Ordinal));
    }

    [Fact]
    public void BothProtocolPortsAreExposedAndBoundForAContainer()
    {
        var exposed = FinalStage.Where(i => i.Keyword == "EXPOSE").SelectMany(i => i.Arguments.Split(' ', StringSplitOptions.RemoveEmptyEntries));
        var env = string.Join(' ', FinalStage.Where(i => i.Keyword == "ENV").Select(i => i.Arguments));

        Assert.Equal(["5080", "5081"], exposed.Order(StringComparer.Ordinal));
        Assert.Contains("Endpoints__Rest=http://0.0.0.0:5080", env, StringComparison.Ordinal);
        Assert.Contains("Endpoints__Grpc=http://0.0.0.0:5081", env, StringComparison.Ordinal);
    }

    [Fact]
    public void TheBuildIsArchitectureNeutralSoOneDockerfileServesAmd64AndArm64()
    {
        Assert.Contains("--platform=$BUILDPLATFORM", Dockerfile.Current.Stages[0][0].Arguments, StringComparison.Ordinal);
        var publish = Assert.Single(Instructions, i => i.Keyword == "RUN" && i.Arguments.Contains("dotnet publish", StringComparison.Ordinal));
        Assert.Contains("UseAppHost=false", publish.Arguments, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"(-r|--runtime|-a|--arch)\s", publish.Arguments);
    }

    [Fact]
    public void RestoreIsLockedToTheCommittedLockFiles()
    {
        var restore = Assert.Single(Instructions, i => i.Keyword == "RUN" && i.Arguments.Contains("dotnet restore", StringComparison.Ordinal));

        Assert.Contains("--locked-mode", restore.Arguments, StringComparison.Ordinal);
        Assert.Contains(Instructions, i => i.Keyword == "COPY" && i.Arguments.Contains("Directory.Packages.props", StringComparison.Ordinal));
    }

    [Fact]
    public void EveryFileTheRestoreLayerCopiesExistsAndCoversEveryProjectTheServiceNeeds()
    {
        var copied = Instructions
            .TakeWhile(i => !(i.Keyword == "RUN" && i.Arguments.Contains("dotnet restore", StringComparison.Ordinal)))
            .Where(i => i.Keyword == "COPY")
            .SelectMany(i => i.Arguments.Split(' ', StringSplitOptions.RemoveEmptyEntries).SkipLast(1))
            .ToList();

        Assert.All(copied, path => Assert.True(File.Exists(Repository.PathOf(path)), $"COPY source {path} does not exist"));
        foreach (var project in ProjectClosure("src/SyncApi/SyncApi.csproj"))
        {
            Assert.Contains(project, copied);
            Assert.Contains(Path.GetDirectoryName(project)!.Replace('\\', '/') + "/packages.lock.json", copied);
        }
    }

    [Fact]
    public void ConfigurationComesFromTheEnvironmentAndNoSecretIsBakedIn()
    {
        Assert.DoesNotContain(Instructions, i => i.Keyword is "ARG" or "ENV" && SecretLike().IsMatch(i.Arguments));
        Assert.DoesNotContain(Instructions, i => i.Keyword is "COPY" or "ADD" && Regex.IsMatch(i.Arguments, @"\.(pfx|pem|key|license)\b"));
        Assert.DoesNotContain(Instructions, i => i.Keyword == "ADD");

        var ignored = File.ReadAllLines(Repository.PathOf(".dockerignore"));
        Assert.Contains("**/*.pfx", ignored);
        Assert.Contains(".git/", ignored);
        Assert.Contains("**/bin/", ignored);
    }

    private static IEnumerable<string> ProjectClosure(string project)
    {
        var seen = new HashSet<string>(StringComparer.Ordinal);
        var pending = new Stack<string>([project]);
        while (pending.TryPop(out var current))
        {
            if (!seen.Add(current))
            {
                continue;
            }

            var dir = Path.GetDirectoryName(current)!;
            foreach (Match reference in ProjectReference().Matches(File.ReadAllText(Repository.PathOf(current))))
            {
                var full = Path.GetFullPath(Path.Combine(Repository.PathOf(dir), reference.Groups[1].Value.Replace('\\', '/')));
                pending.Push(Path.GetRelativePath(Repository.Root, full).Replace('\\', '/'));
            }
        }

        return seen;
    }

    [GeneratedRegex(@"(PASSWORD|SECRET|TOKEN|LICENSE|APIKEY|API_KEY|SIGNINGKEY|SIGNING_KEY)\w*=", RegexOptions.IgnoreCase)]
    private static partial Regex SecretLike();

    [GeneratedRegex("<ProjectReference Include=\"([^\"]+)\"")]
    private static partial Regex ProjectReference();
}
