using System.Diagnostics;
using Kobo.Sync.DeviceSimulator.Tests.Support;
using Kobo.Sync.DevServer.Embedded;

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
    public async Task TheSmallRunSeedsStepsEveryReadOverEveryFrontMeasuresTheSettingsStartsColdAndWritesItsSummary()
    {
        var results = Path.Combine(_scratch, "results");

        var (exit, output) = await RunAsync("timeout", "300", "load/bench/scale.sh", "--small", "--no-build", "--data-dir", Path.Combine(_scratch, "data"), "--out", results,
            "--pg-set", "random_page_cost=1.2");

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
        Assert.Contains("`random_page_cost=1.2`", summary, StringComparison.Ordinal);

        // Each large-data setting against its alternative, measured on the same data.
        Assert.Matches(@"\| highlights by user \| [^|]*Index Scan using highlights_pkey on highlights \| [^|]+ \| (yes|no) \|", summary);
        Assert.Matches(@"\| 64MB \(default\) \| [\d.]+ s \|", summary);
        Assert.Matches(@"\| 90 \| [\d,]+ \| [\d.]+% \| -?[\d.]+% \| -?[\d.]+% \|", summary);
        Assert.Matches(@"\| on \| [\d,]+ \| \d+ \|", summary);
        Assert.Matches(@"\| 200 \| [\d.]+ s \|", summary);

        // The run's own page: latency over time of every read at the full size and of the cold start,
        // and the cost by size, each an inline chart with a line per series.
        var report = await File.ReadAllTextAsync(Path.Combine(results, "report.html"));
        foreach (var title in new[] { "highlights by user: p99 per second", "user by id: p99 per second", "cold start, user by id: per second",
                     "rate at the SLA by size", "CPU per request by size", "disk reads per request by size" })
        {
            var at = report.IndexOf($">{title}</text>", StringComparison.Ordinal);
            Assert.True(at >= 0, title);
            Assert.Contains("<polyline", report[at..report.IndexOf("</svg>", at, StringComparison.Ordinal)], StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task ASettingOverrideThatIsNotKeyEqualsValueIsRefusedBeforeAnythingStarts()
    {
        var (exit, output) = await RunAsync("bash", "load/bench/scale.sh", "--small", "--no-build", "--data-dir", Path.Combine(_scratch, "data"), "--pg-set", "shared_buffers 1GB");

        Assert.Equal(2, exit);
        Assert.Contains("--pg-set takes KEY=VALUE", output, StringComparison.Ordinal);
        Assert.False(Directory.Exists(Path.Combine(_scratch, "data", "pgdata")));
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
