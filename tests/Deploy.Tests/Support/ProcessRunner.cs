using System.Diagnostics;

namespace Kobo.Sync.Deploy.Tests.Support;

/// <summary>Runs a command to completion with a time bound and returns its exit code and output.</summary>
public static class ProcessRunner
{
    public sealed record Outcome(int ExitCode, string StdOut, string StdErr);

    /// <summary>
    /// Runs FILENAME with ARGUMENTS; with ENVIRONMENT, the process gets those variables and no others
    /// (as under <c>env -i</c>), else it inherits the test run's.
    /// </summary>
    public static Outcome Run(
        string fileName, IEnumerable<string> arguments, string workingDirectory, TimeSpan timeout, IReadOnlyDictionary<string, string?>? environment = null)
    {
        var start = new ProcessStartInfo(fileName)
        {
            WorkingDirectory = workingDirectory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        if (environment is not null)
        {
            start.Environment.Clear();
            foreach (var (name, value) in environment)
            {
                start.Environment[name] = value;
            }
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not start {fileName}.");
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        if (!process.WaitForExit(timeout))
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"{fileName} did not finish within {timeout}.");
        }

        return new Outcome(process.ExitCode, stdout.GetAwaiter().GetResult(), stderr.GetAwaiter().GetResult());
    }

    public static bool IsOnPath(string tool) =>
        (Environment.GetEnvironmentVariable("PATH") ?? string.Empty)
            .Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries)
            .Any(dir => File.Exists(Path.Combine(dir, tool)));
}
