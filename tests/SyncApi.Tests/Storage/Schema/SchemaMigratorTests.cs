using Kobo.Sync.Storage.Schema;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Storage.Schema;

public sealed class SchemaMigratorTests
{
    [Fact]
    public async Task AFreshDatabaseGetsEveryMigrationRecordedWithItsChecksum()
    {
        await using var db = await FreshAsync();

        var applied = await new SchemaMigrator(db.DataSource).MigrateAsync(TestTimeout.Token);

        Assert.Equal(Migration.Embedded.Select(m => m.Version), applied);
        await using var command = db.DataSource.CreateCommand("SELECT version, name, checksum FROM schema_migrations ORDER BY version");
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        foreach (var migration in Migration.Embedded)
        {
            Assert.True(await reader.ReadAsync(TestTimeout.Token));
            Assert.Equal((migration.Version, migration.Name, migration.Checksum), (reader.GetInt32(0), reader.GetString(1), reader.GetString(2)));
        }

        Assert.False(await reader.ReadAsync(TestTimeout.Token));
    }

    [Fact]
    public async Task RunningAgainAppliesNothingAndChangesNothing()
    {
        await using var db = await FreshAsync();
        var migrator = new SchemaMigrator(db.DataSource);
        await migrator.MigrateAsync(TestTimeout.Token);

        var second = await migrator.MigrateAsync(TestTimeout.Token);

        Assert.Empty(second);
        Assert.Equal(Migration.Embedded.Count, await CountAsync(db, "SELECT count(*) FROM schema_migrations"));
    }

    [Fact]
    public async Task TheTablesThatGrowWithTheUsersCarryTheirStorageParameters()
    {
        await using var db = await FreshAsync();
        await new SchemaMigrator(db.DataSource).MigrateAsync(TestTimeout.Token);

        await using var command = db.DataSource.CreateCommand(
            "SELECT relname, array_to_string(reloptions, ',') FROM pg_class WHERE relname IN ('users', 'highlights', 'users_books', 'reading_states') ORDER BY relname");
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        var options = new Dictionary<string, string>();
        while (await reader.ReadAsync(TestTimeout.Token))
        {
            options[reader.GetString(0)] = reader.IsDBNull(1) ? "" : reader.GetString(1);
        }

        Assert.Equal("fillfactor=90,autovacuum_vacuum_scale_factor=0.02,autovacuum_analyze_scale_factor=0.02", options["users"]);
        foreach (var table in new[] { "highlights", "users_books", "reading_states" })
        {
            Assert.Equal("autovacuum_vacuum_scale_factor=0.01,autovacuum_analyze_scale_factor=0.01", options[table]);
        }
    }

    [Fact]
    public async Task TwoInstancesMigratingOneFreshDatabaseAtOnceApplyEachMigrationOnce()
    {
        await using var db = await FreshAsync();
        await using var otherInstance = NpgsqlDataSource.Create(db.ConnectionString);

        var results = await Task.WhenAll(
            Task.Run(() => new SchemaMigrator(db.DataSource).MigrateAsync(TestTimeout.Token)),
            Task.Run(() => new SchemaMigrator(otherInstance).MigrateAsync(TestTimeout.Token)));

        Assert.Equal(Migration.Embedded.Count, results.Sum(r => r.Count));
        Assert.Contains(results, r => r.Count == 0);
        Assert.Equal(Migration.Embedded.Count, await CountAsync(db, "SELECT count(*) FROM schema_migrations"));
    }

    [Fact]
    public async Task AMigrationEditedAfterItWasAppliedStopsTheStart()
    {
        await using var db = await FreshAsync();
        await new SchemaMigrator(db.DataSource).MigrateAsync(TestTimeout.Token);
        var edited = Migration.Embedded.Select(m => m with { Checksum = "0000" }).ToList();

        var error = await Assert.ThrowsAsync<InvalidOperationException>(
            () => new SchemaMigrator(db.DataSource).MigrateAsync(edited, TestTimeout.Token));

        Assert.Contains("0001_initial was changed after it was applied", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AFailingMigrationAppliesNothing()
    {
        await using var db = await FreshAsync();
        List<Migration> migrations = [.. Migration.Embedded, new Migration(9999, "9999_broken", "SELECT no_such_column FROM users", "x")];

        await Assert.ThrowsAsync<PostgresException>(() => new SchemaMigrator(db.DataSource).MigrateAsync(migrations, TestTimeout.Token));

        Assert.Equal(0, await CountAsync(db, "SELECT count(*) FROM pg_tables WHERE tablename IN ('users', 'schema_migrations')"));
    }

    private static async Task<OwnedDatabase> FreshAsync()
    {
        var db = new OwnedDatabase();
        await db.InitializeAsync();
        return db;
    }

    private static async Task<long> CountAsync(PostgresDatabase db, string sql)
    {
        await using var command = db.DataSource.CreateCommand(sql);
        return (long)(await command.ExecuteScalarAsync(TestTimeout.Token))!;
    }

    /// <summary>A fresh database per test: these tests change the schema.</summary>
    private sealed class OwnedDatabase : PostgresDatabase, IAsyncDisposable
    {
        async ValueTask IAsyncDisposable.DisposeAsync() => await DisposeAsync();
    }
}
