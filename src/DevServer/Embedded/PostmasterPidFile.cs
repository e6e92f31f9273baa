namespace Kobo.Sync.DevServer.Embedded;

/// <summary>
/// The server's <c>postmaster.pid</c>: line 1 the pid, line 2 the data directory, line 4 the port,
/// line 8 the status (<c>ready</c> once it accepts connections).
/// </summary>
public sealed record PostmasterPidFile(int Pid, string DataDirectory, int Port, string Status)
{
    public const string FileName = "postmaster.pid";

    public static PostmasterPidFile? TryRead(string dataDirectory)
    {
        string[] lines;
        try
        {
            lines = File.ReadAllLines(Path.Combine(dataDirectory, FileName));
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return null;
        }

        if (lines.Length < 1 || !int.TryParse(lines[0].Trim(), out var pid))
        {
            return null;
        }

        var port = lines.Length >= 4 && int.TryParse(lines[3].Trim(), out var p) ? p : 0;
        return new PostmasterPidFile(
            pid,
            lines.Length >= 2 ? lines[1].Trim() : string.Empty,
            port,
            lines.Length >= 8 ? lines[7].Trim() : string.Empty);
    }

    /// <summary>Whether <see cref="Pid"/> is a live PostgreSQL server on this data directory.</summary>
    public bool IsLiveServerFor(string dataDirectory)
    {
        if (!NativeMethods.IsAlive(Pid) || !string.Equals(DataDirectory, dataDirectory, StringComparison.Ordinal))
        {
            return false;
        }

        try
        {
            var cmdline = File.ReadAllText($"/proc/{Pid}/cmdline");
            return cmdline.Contains("postgres", StringComparison.Ordinal);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            return false;
        }
    }
}
