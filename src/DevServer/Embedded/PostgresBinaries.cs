namespace Kobo.Sync.DevServer.Embedded;

/// <summary>
/// The server binaries of the highest installed major version under <c>/usr/lib/postgresql/*/bin</c>.
/// <c>pg_config --bindir</c> is not trusted: on Debian, with only the client installed, it points elsewhere.
/// </summary>
public sealed record PostgresBinaries(string BinDirectory, Version Version)
{
    public const string MissingMessage =
        "No PostgreSQL server binaries found under /usr/lib/postgresql/*/bin. Install them: " +
        "apt-get install postgresql-15 (Debian/Ubuntu) or set Storage:ConnectionString to an existing server.";

    public string Postgres => Path.Combine(BinDirectory, "postgres");

    public string InitDb => Path.Combine(BinDirectory, "initdb");

    public static PostgresBinaries Find(string root)
    {
        PostgresBinaries? best = null;
        if (Directory.Exists(root))
        {
            foreach (var dir in Directory.EnumerateDirectories(root))
            {
                var bin = Path.Combine(dir, "bin");
                if (!File.Exists(Path.Combine(bin, "postgres"))
                    || !Version.TryParse(NormaliseVersion(Path.GetFileName(dir)), out var version))
                {
                    continue;
                }

                if (best is null || version > best.Version)
                {
                    best = new PostgresBinaries(bin, version);
                }
            }
        }

        return best ?? throw new InvalidOperationException(MissingMessage);
    }

    // Directories are named "15" or "9.6"; Version needs at least two parts.
    private static string NormaliseVersion(string name) => name.Contains('.', StringComparison.Ordinal) ? name : name + ".0";
}
