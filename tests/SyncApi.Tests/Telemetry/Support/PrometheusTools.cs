using System.Diagnostics;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Support;

/// <summary>
/// Debian's <c>prometheus</c> package: <c>promtool</c> and the <c>prometheus</c> server. They are
/// required (`.ci/run` installs the package): a missing binary fails the test with the fix, never skips it.
/// </summary>
public static class PrometheusTools
{
    public static string Promtool => Find("promtool");

    public static string Prometheus => Find("prometheus");

    /// <summary><c>promtool check metrics</c> on an exposition read from stdin: exit code and what it said.</summary>
    public static async Task<(int ExitCode, string Output)> CheckMetricsAsync(string exposition)
    {
        var start = new ProcessStartInfo(Promtool)
        {
            ArgumentList = { "check", "metrics" },
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        await process.StandardInput.WriteAsync(exposition);
        process.StandardInput.Close();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        await process.WaitForExitAsync(timeout.Token);
        return (process.ExitCode, (await stdout) + (await stderr));
    }

    private static string Find(string tool)
    {
        foreach (var directory in (Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
                     .Append("/usr/bin"))
        {
            var candidate = Path.Combine(directory, tool);
            if (File.Exists(candidate))
            {
                return candidate;
            }
        }

        throw new InvalidOperationException(
            $"'{tool}' is not installed. It comes with Debian's prometheus package: apt-get install prometheus (.ci/run does this).");
    }
}
