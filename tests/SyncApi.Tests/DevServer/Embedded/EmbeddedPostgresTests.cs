using System.Diagnostics;
using Kobo.Sync.DevServer.Embedded;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.DevServer.Embedded;

public sealed class EmbeddedPostgresTests : IDisposable
{
    private readonly List<string> _scratch = [];

    public void Dispose() => _scratch.ForEach(PostgresServer.DeleteScratchDirectory);

    [Fact]
    public async Task FirstStartInitialisesTheDataDirectoryAndASecondStartReusesItsData()
    {
        var settings = NewSettings();

        await using (var first = await EmbeddedPostgres.StartAsync(settings, cancellationToken: TestTimeout.Token))
        {
            Assert.True(first.Initialized);
            Assert.True(first.OwnsServer);
            await ExecuteAsync(first.ConnectionString, "CREATE TABLE kept (v int); INSERT INTO kept VALUES (42)");
        }

        Assert.False(File.Exists(Path.Combine(settings.DataDirectory, "postmaster.pid")));
        var passwordFile = Path.Combine(settings.DataDirectory, EmbeddedPostgres.PasswordFileName);
        Assert.Equal(UnixFileMode.UserRead | UnixFileMode.UserWrite, File.GetUnixFileMode(passwordFile));

        await using var second = await EmbeddedPostgres.StartAsync(settings, cancellationToken: TestTimeout.Token);
        Assert.False(second.Initialized);
        Assert.Equal(42, await ScalarAsync<int>(second.ConnectionString, "SELECT v FROM kept"));
        Assert.Equal(settings.Database, await ScalarAsync<string>(second.ConnectionString, "SELECT current_database()"));
    }

    [Fact]
    public async Task AServerThatKeepsItsDataRunsWithTheLargeDataSettings()
    {
        var settings = NewSettings() with { ThrowAway = false };
        var expected = LargeDataSettings.Render(LargeDataSettings.MachineMemoryBytes());

        await using var server = await EmbeddedPostgres.StartAsync(settings, cancellationToken: TestTimeout.Token);

        Assert.Contains(new KeyValuePair<string, string>("random_page_cost", "1.1"), expected);
        Assert.Equal("1.1", await ScalarAsync<string>(server.ConnectionString, "SELECT current_setting('random_page_cost')"));
        foreach (var (key, _) in expected)
        {
            Assert.Equal($"{key}: {LargeDataSettings.FileName}", await ScalarAsync<string>(
                server.ConnectionString, $"SELECT name || ': ' || regexp_replace(coalesce(sourcefile, source), '^.*/', '') FROM pg_settings WHERE name = '{key}'"));
        }
    }

    [Fact]
    public async Task AnOperatorsAlterSystemOverridesALargeDataSettingAcrossRestarts()
    {
        var settings = NewSettings() with { ThrowAway = false };
        await using (var first = await EmbeddedPostgres.StartAsync(settings, cancellationToken: TestTimeout.Token))
        {
            await ExecuteAsync(first.ConnectionString, "ALTER SYSTEM SET random_page_cost = 2.5");
        }

        await using var second = await EmbeddedPostgres.StartAsync(settings, cancellationToken: TestTimeout.Token);

        Assert.Equal("2.5", await ScalarAsync<string>(second.ConnectionString, "SELECT current_setting('random_page_cost')"));
        Assert.Equal(1, File.ReadLines(Path.Combine(settings.DataDirectory, "postgresql.conf")).Count(l => l.Contains(LargeDataSettings.FileName, StringComparison.Ordinal)));
    }

    [Fact]
    public void AMemoryShareIsAPercentageOfTheServersMemoryInWholeMegabytes()
    {
        var settings = LargeDataSettings.Parse("shared_buffers = 25%  # a quarter\n# comment\n\nrandom_page_cost = 1.1\n", 24L * 1024 * 1024 * 1024);

        Assert.Equal([new("shared_buffers", "6144MB"), new("random_page_cost", "1.1")], settings);
        Assert.Throws<FormatException>(() => LargeDataSettings.Parse("shared_buffers = 250%", 1024 * 1024));
        Assert.Throws<FormatException>(() => LargeDataSettings.Parse("shared_buffers", 1024 * 1024));
    }

    [Fact]
    public async Task AServerKilledWithSigkillLeavesAStalePidFileThatTheNextStartRecovers()
    {
        var settings = NewSettings();
        var first = await EmbeddedPostgres.StartAsync(settings, cancellationToken: TestTimeout.Token);
        // One handle for the kill and the wait: the server may be gone (and its id free) by the time a second look-up asks.
        using (var postmaster = Process.GetProcessById(first.ProcessId))
        {
            postmaster.Kill(); // SIGKILL: no shutdown, postmaster.pid stays
            await postmaster.WaitForExitAsync(TestTimeout.Token).ContinueWith(_ => { }, TaskScheduler.Default);
        }

        Assert.True(File.Exists(Path.Combine(settings.DataDirectory, "postmaster.pid")));

        await using var second = await EmbeddedPostgres.StartAsync(settings, cancellationToken: TestTimeout.Token);

        Assert.NotEqual(first.ProcessId, second.ProcessId);
        Assert.Equal(1, await ScalarAsync<int>(second.ConnectionString, "SELECT 1"));
        await first.DisposeAsync();
    }

    [Fact]
    public async Task AServerAlreadyRunningOnTheDataDirectoryIsReusedAndLeftRunning()
    {
        var settings = NewSettings();
        await using var owner = await EmbeddedPostgres.StartAsync(settings, cancellationToken: TestTimeout.Token);

        await using (var guest = await EmbeddedPostgres.StartAsync(settings with { Port = LoopbackPorts.Free() }, cancellationToken: TestTimeout.Token))
        {
            Assert.False(guest.OwnsServer);
            Assert.Equal(owner.ProcessId, guest.ProcessId);
            Assert.Equal(owner.ConnectionString, guest.ConnectionString);
        }

        Assert.Equal(1, await ScalarAsync<int>(owner.ConnectionString, "SELECT 1"));
    }

    [Fact]
    public async Task TheLogSafeConnectionStringCarriesNoPassword()
    {
        var settings = NewSettings();
        await using var server = await EmbeddedPostgres.StartAsync(settings, cancellationToken: TestTimeout.Token);

        Assert.Equal(
            $"Host=127.0.0.1;Port={settings.Port};Database={settings.Database};Username=kobo",
            server.LogSafeConnectionString);
        Assert.Contains("Password=", server.ConnectionString, StringComparison.Ordinal);
    }

    [Fact]
    public async Task MissingServerBinariesFailWithAnInstallHint()
    {
        var settings = NewSettings() with { BinariesRoot = Scratch() };

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => EmbeddedPostgres.StartAsync(settings));

        Assert.Equal(
            "No PostgreSQL server binaries found under /usr/lib/postgresql/*/bin. Install them: apt-get install postgresql-15 (Debian/Ubuntu) or set Storage:ConnectionString to an existing server.",
            error.Message);
    }

    [Fact]
    public void TheHighestInstalledVersionIsChosenComparingVersionsAsNumbers()
    {
        var root = Scratch();
        foreach (var version in new[] { "9.6", "15", "10", "nope" })
        {
            Directory.CreateDirectory(Path.Combine(root, version, "bin"));
            File.WriteAllText(Path.Combine(root, version, "bin", "postgres"), string.Empty);
        }

        Directory.CreateDirectory(Path.Combine(root, "16", "bin")); // client only: no server binary

        var binaries = PostgresBinaries.Find(root);

        Assert.Equal(Path.Combine(root, "15", "bin"), binaries.BinDirectory);
    }

    [Fact]
    public async Task ADataDirectoryUnderAPathPostgresCannotTraverseFailsWithAMessageNamingIt()
    {
        if (!Environment.IsPrivilegedProcess)
        {
            return; // only root hands the server to the postgres user; this machine and CI run as root
        }

        var closed = Path.Combine(Scratch(), "closed");
        Directory.CreateDirectory(closed, UnixFileMode.UserRead | UnixFileMode.UserWrite | UnixFileMode.UserExecute);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(
            () => EmbeddedPostgres.StartAsync(NewSettings() with { DataDirectory = Path.Combine(closed, "pgdata") }));

        Assert.Contains($"{closed} is not traversable by others (o+x)", error.Message, StringComparison.Ordinal);
        Assert.Contains("Storage:Embedded:DataDirectory", error.Message, StringComparison.Ordinal);
    }

    private string Scratch()
    {
        var path = PostgresServer.NewScratchDirectory();
        _scratch.Add(path);
        return path;
    }

    private EmbeddedPostgresSettings NewSettings() => new()
    {
        DataDirectory = Path.Combine(Scratch(), "pgdata"),
        Port = LoopbackPorts.Free(),
        Database = "launcher_test",
        ThrowAway = true,
    };

    private static async Task ExecuteAsync(string connectionString, string sql)
    {
        await using var connection = new NpgsqlConnection(connectionString + ";Pooling=false");
        await connection.OpenAsync(TestTimeout.Token);
        await using var command = new NpgsqlCommand(sql, connection);
        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }

    private static async Task<T> ScalarAsync<T>(string connectionString, string sql)
    {
        await using var connection = new NpgsqlConnection(connectionString + ";Pooling=false");
        await connection.OpenAsync(TestTimeout.Token);
        await using var command = new NpgsqlCommand(sql, connection);
        return (T)(await command.ExecuteScalarAsync(TestTimeout.Token))!;
    }
}
