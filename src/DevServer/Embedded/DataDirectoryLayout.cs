using System.Runtime.Versioning;

namespace Kobo.Sync.DevServer.Embedded;

/// <summary>The files around a data directory: its parents, its start lock and its password file.</summary>
[UnsupportedOSPlatform("windows")]
public static class DataDirectoryLayout
{
    private const UnixFileMode Traversable = UnixFileMode.OtherExecute;

    /// <summary>
    /// Creates missing parents (mode 0755) and, as root, checks that <c>postgres</c> can traverse each
    /// existing one: the mode of a directory the launcher did not create is never changed.
    /// </summary>
    public static void EnsureParents(string dataDirectory, bool asRoot)
    {
        var parent = Path.GetDirectoryName(dataDirectory)
            ?? throw new ArgumentException($"The data directory cannot be the root directory.", nameof(dataDirectory));
        Directory.CreateDirectory(parent,
            UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute
            | UnixFileMode.GroupRead | UnixFileMode.GroupExecute | UnixFileMode.OtherRead | UnixFileMode.OtherExecute);
        if (!asRoot)
        {
            return;
        }

        for (var dir = parent; dir is not null; dir = Path.GetDirectoryName(dir))
        {
            if ((File.GetUnixFileMode(dir) & Traversable) == 0)
            {
                throw new InvalidOperationException(
                    $"The embedded PostgreSQL server runs as the 'postgres' user, which cannot reach {dataDirectory}: " +
                    $"{dir} is not traversable by others (o+x). Set Storage:Embedded:DataDirectory to a path postgres can reach " +
                    $"(e.g. /var/lib/kobo-sync/postgres), or run 'chmod o+x {dir}'.");
            }
        }

        if (Directory.Exists(dataDirectory)
            && !File.Exists(Path.Combine(dataDirectory, "PG_VERSION"))
            && Directory.EnumerateFileSystemEntries(dataDirectory).Any())
        {
            throw new InvalidOperationException(
                $"{dataDirectory} is not empty but holds no PostgreSQL data directory (no PG_VERSION). " +
                $"Set Storage:Embedded:DataDirectory to an empty or new directory.");
        }
    }

    /// <summary>
    /// An exclusive lock on <c>{dataDirectory}.lock</c> for the start sequence, so two instances starting
    /// at once neither initialise twice nor launch two servers: the second one reuses the first's server.
    /// </summary>
    public static async Task<IDisposable> LockAsync(string dataDirectory, TimeSpan timeout, CancellationToken cancellationToken)
    {
        var path = dataDirectory + ".lock";
        var deadline = DateTime.UtcNow + timeout;
        while (true)
        {
            try
            {
                return new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
            }
            catch (IOException) when (DateTime.UtcNow < deadline)
            {
                await Task.Delay(50, cancellationToken).ConfigureAwait(false);
            }
        }
    }

    public static async Task<string> ReadPasswordAsync(string dataDirectory, CancellationToken cancellationToken)
    {
        var path = Path.Combine(dataDirectory, EmbeddedPostgres.PasswordFileName);
        if (!File.Exists(path))
        {
            throw new InvalidOperationException(
                $"{dataDirectory} holds a PostgreSQL data directory that was not created by Kobo.Sync (no " +
                $"{EmbeddedPostgres.PasswordFileName}). " +
                "Point Storage:Embedded:DataDirectory elsewhere, or set Storage:ConnectionString to that server.");
        }

        return (await File.ReadAllTextAsync(path, cancellationToken).ConfigureAwait(false)).Trim();
    }
}
