using System.Diagnostics;
using Kobo.Sync.Deploy.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>
/// No container engine runs here, so this replays the Dockerfile's own steps on the host: the build
/// stage's COPY and RUN lines into a scratch folder, then the runtime stage's ENV and ENTRYPOINT, and
/// finally its HEALTHCHECK command against the running service. Only the base images are not exercised.
/// </summary>
public sealed class DockerfileRecipeTests : IDisposable
{
    private readonly string _scratch = Directory.CreateTempSubdirectory("kobo-sync-image-").FullName;
    private readonly string _database = Path.Combine(Path.GetTempPath(), "kobo-sync-image-db-" + Guid.NewGuid().ToString("N"));

    [Fact]
    public void TheBuildStepsProduceAServiceThatPassesTheImagesOwnHealthCheck()
    {
        var sourceDir = Path.Combine(_scratch, "src-root");
        var appDir = Path.Combine(_scratch, "app");
        Directory.CreateDirectory(sourceDir);

        ReplayBuildStage(Dockerfile.Current.Stages[0], sourceDir, appDir);
        Assert.True(File.Exists(Path.Combine(appDir, "Kobo.Sync.SyncApi.dll")), "publish produced no service assembly");
        Assert.False(File.Exists(Path.Combine(appDir, "Kobo.Sync.SyncApi")), "a native host would tie the output to one architecture");

        var runtime = Dockerfile.Current.FinalStage;
        var (restPort, grpcPort) = (LoopbackPorts.Free(), LoopbackPorts.Free());
        var entrypoint = Assert.Single(runtime, i => i.Keyword == "ENTRYPOINT").ExecForm();
        var start = new ProcessStartInfo(entrypoint[0]) { WorkingDirectory = appDir, UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        foreach (var argument in entrypoint.Skip(1))
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (key, value) in runtime.Where(i => i.Keyword == "ENV").SelectMany(i => i.EnvPairs()))
        {
            start.Environment[key] = value;
        }

        // Same configuration as the image, but on loopback ports free on this machine. The image is
        // given its database by connection string; here the service's private PostgreSQL stands in (asked for, as Production starts none by itself),
        // in a folder the postgres user can enter (the scratch folder is private to this user).
        start.Environment["Endpoints__Rest"] = $"http://127.0.0.1:{restPort}";
        start.Environment["Endpoints__Grpc"] = $"http://127.0.0.1:{grpcPort}";
        start.Environment["Storage__Embedded__Enabled"] = "true";
        start.Environment["Storage__Embedded__DataDirectory"] = _database;
        start.Environment["Storage__Embedded__Port"] = LoopbackPorts.Free().ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["Demo__Seed"] = "false";
        start.Environment["Auth__SigningKey"] = "image-test-signing-key-at-least-32-bytes";

        using var service = Process.Start(start)!;
        service.OutputDataReceived += (_, _) => { };
        service.ErrorDataReceived += (_, _) => { };
        service.BeginOutputReadLine();
        service.BeginErrorReadLine();
        try
        {
            var check = Assert.Single(runtime, i => i.Keyword == "HEALTHCHECK").ExecForm()
                .Select(word => word.Replace(":5080/", $":{restPort}/", StringComparison.Ordinal))
                .ToList();
            Assert.Contains(check, word => word.Contains($":{restPort}/healthz/live", StringComparison.Ordinal));

            var deadline = Stopwatch.StartNew();
            ProcessRunner.Outcome outcome;
            do
            {
                Assert.False(service.HasExited, $"the service exited with {(service.HasExited ? service.ExitCode : 0)}");
                Thread.Sleep(250);
                outcome = ProcessRunner.Run(check[0], check.Skip(1), appDir, TimeSpan.FromSeconds(10));
            }
            while (outcome.ExitCode != 0 && deadline.Elapsed < TimeSpan.FromSeconds(30));

            Assert.True(outcome.ExitCode == 0, $"health check failed: {outcome.StdErr}");
            Assert.Equal("Healthy", outcome.StdOut);
        }
        finally
        {
            // SIGTERM: the host shuts down and stops its PostgreSQL with it.
            ProcessRunner.Run("kill", ["-TERM", service.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)], appDir, TimeSpan.FromSeconds(5));
            if (!service.WaitForExit(20_000))
            {
                service.Kill(entireProcessTree: true);
                service.WaitForExit(10_000);
            }
        }
    }

    private static void ReplayBuildStage(IReadOnlyList<Dockerfile.Instruction> stage, string sourceDir, string appDir)
    {
        foreach (var instruction in stage.Skip(1))
        {
            switch (instruction.Keyword)
            {
                case "WORKDIR":
                    Assert.Equal("/src", instruction.Arguments);
                    break;
                case "COPY":
                    var words = instruction.Arguments.Split(' ', StringSplitOptions.RemoveEmptyEntries);
                    var destination = Path.Combine(sourceDir, words[^1].TrimStart('.', '/'));
                    foreach (var source in words[..^1])
                    {
                        CopyIntoContext(Repository.PathOf(source.TrimEnd('/')), destination, isDirectory: source.EndsWith('/'));
                    }

                    break;
                case "RUN":
                    var command = instruction.Arguments.Replace(" /app", " " + appDir, StringComparison.Ordinal);
                    var outcome = ProcessRunner.Run("bash", ["-c", command], sourceDir, TimeSpan.FromMinutes(5));
                    Assert.True(outcome.ExitCode == 0, $"RUN {instruction.Arguments} failed:\n{outcome.StdOut}\n{outcome.StdErr}");
                    break;
                default:
                    Assert.Fail($"the build stage has a {instruction.Keyword} this replay does not understand");
                    break;
            }
        }
    }

    private static void CopyIntoContext(string source, string destination, bool isDirectory)
    {
        if (!isDirectory)
        {
            Directory.CreateDirectory(destination);
            File.Copy(source, Path.Combine(destination, Path.GetFileName(source)), overwrite: true);
            return;
        }

        // As .dockerignore: build output and a local run's database never enter the context.
        foreach (var file in Directory.EnumerateFiles(source, "*", SearchOption.AllDirectories))
        {
            var relative = Path.GetRelativePath(source, file);
            var parts = relative.Split(Path.DirectorySeparatorChar);
            if (parts.Contains("bin") || parts.Contains("obj") || parts.Contains("data"))
            {
                continue;
            }

            var target = Path.Combine(destination, relative);
            Directory.CreateDirectory(Path.GetDirectoryName(target)!);
            File.Copy(file, target, overwrite: true);
        }
    }

    public void Dispose()
    {
        Directory.Delete(_scratch, recursive: true);
        if (Directory.Exists(_database))
        {
            Directory.Delete(_database, recursive: true);
        }
    }
}
