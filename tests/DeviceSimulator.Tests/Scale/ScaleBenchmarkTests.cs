using System.Diagnostics;
using Kobo.Sync.DeviceSimulator.Tests.Support;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Embedded;

namespace Kobo.Sync.DeviceSimulator.Tests.Scale;

/// <summary>
/// load/bench/scale.sh, the benchmark at a data set larger than memory, kept from rotting: its
/// <c>--small</c> run (20,000 users, one short step per read and front, a 10 s cold start) on its own
/// PostgreSQL and service, and the settings it starts PostgreSQL with against the embedded server's.
/// </summary>
public sealed class ScaleBenchmarkTests : IDisposable
{
    private readonly string _scratch = Path.Combine(Path.GetTempPath(), $"kobo-scale-{Guid.NewGuid():N}");

    public void Dispose()
    {
        if (Directory.Exists(_scratch))
        {
            Directory.Delete(_scratch, recursive: true);
        }
    }

    [Fact]
    public async Task TheSmallRunSeedsStepsEveryReadOverEveryFrontStartsColdAndWritesItsSummary()
    {
        var results = Path.Combine(_scratch, "results");

        var (exit, output) = await RunAsync("timeout", "300", "load/bench/scale.sh", "--small", "--no-build", "--data-dir", Path.Combine(_scratch, "data"), "--out", results);

        Assert.True(exit == 0, output);
        var summary = await File.ReadAllTextAsync(Path.Combine(results, "summary.md"));
        foreach (var read in new[] { "highlights by user", "highlights by user+book", "user by id" })
        {
            foreach (var front in new[] { "REST", "gRPC", "raw PostgreSQL" })
            {
                Assert.Contains($"| {read}, {front} |", summary, StringComparison.Ordinal);
            }

            Assert.Contains($"| 3,000 | {read} | REST |", summary, StringComparison.Ordinal);
        }

        Assert.Contains("## Cold start", summary, StringComparison.Ordinal);
        Assert.Contains("- first answer: ", summary, StringComparison.Ordinal);
        Assert.Contains("| 20,000 | ", summary, StringComparison.Ordinal); // the seeds' bytes per document
        Assert.True(File.Exists(Path.Combine(results, "20000-user-by-id-grpc-100", "report.html")));
    }

    [Fact]
    public async Task TheBenchmarksPostgresSettingsAreTheEmbeddedServers()
    {
        var expected = LargeDataSettings.Render(LargeDataSettings.MachineMemoryBytes()).Select(s => $"{s.Key}={s.Value}");

        var (exit, output) = await RunAsync("bash", "-c", ". deploy/postgres/settings.sh && postgres_large_data_settings 1");

        Assert.Equal(0, exit);
        Assert.Equal(expected, output.Split('\n', StringSplitOptions.RemoveEmptyEntries));
    }

    /// <summary>Runs a command from the repository root; the commands bound their own time (<c>timeout</c> stops the script with TERM, so it stops its servers).</summary>
    private static async Task<(int Exit, string Output)> RunAsync(string file, params string[] arguments)
    {
        var start = new ProcessStartInfo(file) { WorkingDirectory = RepositoryRoot.Path, RedirectStandardOutput = true, RedirectStandardError = true };
        arguments.ToList().ForEach(start.ArgumentList.Add);
        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();
        return (process.ExitCode, await stdout + await stderr);
    }
}
