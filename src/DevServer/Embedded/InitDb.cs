using System.Runtime.Versioning;
using System.Security.Cryptography;

namespace Kobo.Sync.DevServer.Embedded;

/// <summary>Creates a data directory: initdb with SCRAM and a random superuser password.</summary>
public static class InitDb
{
    [UnsupportedOSPlatform("windows")]
    public static async Task RunAsync(
        PostgresBinaries binaries, EmbeddedPostgresSettings settings,
        string dataDirectory, bool asRoot, CancellationToken cancellationToken)
    {
        // initdb fills a sibling directory that is renamed into place with its password file, so a
        // crash half-way leaves nothing that looks like a data directory.
        var staging = dataDirectory + ".initdb";
        if (Directory.Exists(staging))
        {
            Directory.Delete(staging, recursive: true);
        }

        Directory.CreateDirectory(staging, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        var password = Convert.ToHexString(RandomNumberGenerator.GetBytes(24)).ToLowerInvariant();
        var passwordFile = Path.Combine(staging, EmbeddedPostgres.PasswordFileName);
        await File.WriteAllTextAsync(passwordFile, password, cancellationToken).ConfigureAwait(false);
        File.SetUnixFileMode(passwordFile, UnixFileMode.UserRead | UnixFileMode.UserWrite);

        var pgdata = Path.Combine(staging, "pgdata");
        Directory.CreateDirectory(pgdata, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);
        if (asRoot)
        {
            await ProcessRunner.RunAsync(
                "chown", ["-R", $"{EmbeddedPostgres.PostgresUser}:{EmbeddedPostgres.PostgresUser}", staging],
                cancellationToken).ConfigureAwait(false);
        }

        List<string> initdb =
        [
            binaries.InitDb, "-D", pgdata, "-U", settings.UserName, "--auth=scram-sha-256",
            $"--pwfile={passwordFile}", "--encoding=UTF8", "--no-locale", "--no-instructions",
        ];
        if (settings.ThrowAway)
        {
            initdb.Add("--no-sync");
        }

        if (asRoot)
        {
            await ProcessRunner.RunAsync(
                "runuser", ["-u", EmbeddedPostgres.PostgresUser, "--", .. initdb], cancellationToken).ConfigureAwait(false);
        }
        else
        {
            await ProcessRunner.RunAsync(initdb[0], initdb[1..], cancellationToken).ConfigureAwait(false);
        }

        File.Move(passwordFile, Path.Combine(pgdata, EmbeddedPostgres.PasswordFileName));
        if (Directory.Exists(dataDirectory))
        {
            Directory.Delete(dataDirectory); // empty: checked by DataDirectoryLayout.EnsureParents
        }

        Directory.Move(pgdata, dataDirectory);
        Directory.Delete(staging, recursive: true);
    }
}
