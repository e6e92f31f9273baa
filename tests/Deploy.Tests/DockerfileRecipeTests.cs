using System.Diagnostics;
using System.Reflection.Metadata;
using System.Reflection.PortableExecutable;
using Kobo.Sync.Deploy.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>
/// No container engine runs here, so this replays the Dockerfile's own steps on the host: the build
/// stage's COPY and RUN lines into a scratch folder, then the runtime stage's ENV and ENTRYPOINT, and
/// finally its HEALTHCHECK command against the running service. Only the base images are not exercised.
/// The published service is a production build: it carries no development server (embedded PostgreSQL,
/// demo data, demo books), and started without a database it stops, naming the setting.
/// </summary>
public sealed class DockerfileRecipeTests(PostgresDatabase database) : IClassFixture<PostgresDatabase>, IDisposable
{
    private const string DevelopmentServerAssembly = "Kobo.Sync.DevServer";

    private readonly string _scratch = Directory.CreateTempSubdirectory("kobo-sync-image-").FullName;

    [Fact]
    public void TheBuildStepsProduceAServiceThatPassesTheImagesOwnHealthCheck()
    {
        var sourceDir = Path.Combine(_scratch, "src-root");
        var appDir = Path.Combine(_scratch, "app");
        Directory.CreateDirectory(sourceDir);

        ReplayBuildStage(Dockerfile.Current.Stages[0], sourceDir, appDir);
        Assert.True(File.Exists(Path.Combine(appDir, "Kobo.Sync.SyncApi.dll")), "publish produced no service assembly");
        Assert.False(File.Exists(Path.Combine(appDir, "Kobo.Sync.SyncApi")), "a native host would tie the output to one architecture");
        ThePublishCarriesNoDevelopmentServer(appDir);
        WithoutADatabaseTheServiceStopsNamingTheSetting(appDir);

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

        // Same configuration as the image, but on loopback ports free on this machine, and the test run's
        // PostgreSQL as the database the image is given by connection string.
        start.Environment["Endpoints__Rest"] = $"http://127.0.0.1:{restPort}";
        start.Environment["Endpoints__Grpc"] = $"http://127.0.0.1:{grpcPort}";
        start.Environment["Storage__ConnectionString"] = database.ConnectionString;
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
            // SIGTERM: the host shuts down.
            ProcessRunner.Run("kill", ["-TERM", service.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)], appDir, TimeSpan.FromSeconds(5));
            if (!service.WaitForExit(20_000))
            {
                service.Kill(entireProcessTree: true);
                service.WaitForExit(10_000);
            }
        }
    }

    /// <summary>No development server assembly, no reference to one, and none of its types compiled into the service.</summary>
    private static void ThePublishCarriesNoDevelopmentServer(string appDir)
    {
        Assert.Empty(Directory.EnumerateFiles(appDir, DevelopmentServerAssembly + ".*"));
        Assert.DoesNotContain(DevelopmentServerAssembly, File.ReadAllText(Path.Combine(appDir, "Kobo.Sync.SyncApi.deps.json")), StringComparison.Ordinal);

        using var pe = new PEReader(File.OpenRead(Path.Combine(appDir, "Kobo.Sync.SyncApi.dll")));
        var metadata = pe.GetMetadataReader();
        var references = metadata.AssemblyReferences.Select(r => metadata.GetString(metadata.GetAssemblyReference(r).Name)).ToList();
        Assert.Contains("Kobo.Sync.Storage", references);
        Assert.DoesNotContain(DevelopmentServerAssembly, references);
        var types = metadata.TypeDefinitions.Select(t => metadata.GetString(metadata.GetTypeDefinition(t).Name)).ToList();
        Assert.Contains("StorageExtensions", types);
        Assert.DoesNotContain("KoboDemoContentApi", types);
    }

    /// <summary>Development, no connection string: a build with the development server would start its own; this one stops.</summary>
    private static void WithoutADatabaseTheServiceStopsNamingTheSetting(string appDir)
    {
        var start = new ProcessStartInfo("dotnet") { WorkingDirectory = appDir, UseShellExecute = false, RedirectStandardOutput = true, RedirectStandardError = true };
        start.ArgumentList.Add("Kobo.Sync.SyncApi.dll");
        start.Environment["ASPNETCORE_ENVIRONMENT"] = "Development";
        start.Environment["Endpoints__Rest"] = $"http://127.0.0.1:{LoopbackPorts.Free()}";
        start.Environment["Endpoints__Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}";
        start.Environment["Storage__ConnectionString"] = "";
        using var service = Process.Start(start)!;
        var output = service.StandardOutput.ReadToEndAsync();
        var error = service.StandardError.ReadToEndAsync();
        if (!service.WaitForExit(60_000))
        {
            service.Kill(entireProcessTree: true);
            Assert.Fail("the service without a database did not stop");
        }

        Assert.NotEqual(0, service.ExitCode);
        Assert.Contains("Storage:ConnectionString is empty and this build carries no embedded PostgreSQL server", output.Result + error.Result, StringComparison.Ordinal);
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

    public void Dispose() => Directory.Delete(_scratch, recursive: true);
}
