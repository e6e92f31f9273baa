using System.Diagnostics;

namespace Kobo.Sync.DevServer.Embedded;

/// <summary>Runs a short command (initdb, chown) to completion, failing with its output.</summary>
public static class ProcessRunner
{
    public static async Task RunAsync(string fileName, IEnumerable<string> arguments, CancellationToken cancellationToken)
    {
        var startInfo = NewStartInfo(fileName, arguments);
        using var process = Process.Start(startInfo)
            ?? throw new InvalidOperationException($"Could not start {fileName}.");
        var stdout = process.StandardOutput.ReadToEndAsync(cancellationToken);
        var stderr = process.StandardError.ReadToEndAsync(cancellationToken);
        await process.WaitForExitAsync(cancellationToken).ConfigureAwait(false);
        var output = (await stdout.ConfigureAwait(false)) + (await stderr.ConfigureAwait(false));
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException(
                $"{fileName} {string.Join(' ', startInfo.ArgumentList)} failed with exit code {process.ExitCode}: {output.Trim()}");
        }
    }

    /// <summary>Children start in "/" so that a working directory postgres cannot enter never matters.</summary>
    public static ProcessStartInfo NewStartInfo(string fileName, IEnumerable<string> arguments)
    {
        var startInfo = new ProcessStartInfo(fileName)
        {
            WorkingDirectory = "/",
            UseShellExecute = false,
            RedirectStandardInput = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        foreach (var argument in arguments)
        {
            startInfo.ArgumentList.Add(argument);
        }

        // The server's messages are parsed nowhere, but keep them in one language.
        startInfo.Environment["LC_MESSAGES"] = "C";
        return startInfo;
    }
}
