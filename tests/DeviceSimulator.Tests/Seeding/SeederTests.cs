using Kobo.Sync.DeviceSimulator.Seeding;
using Kobo.Sync.Storage.Schema;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Tests.Seeding;

public sealed class SeederTests : IAsyncLifetime
{
    private readonly PostgresDatabase _first = new();
    private readonly PostgresDatabase _second = new();
    private readonly PostgresDatabase _migratedOnly = new();

    public async Task InitializeAsync()
    {
        await _first.InitializeAsync();
        await _second.InitializeAsync();
        await _migratedOnly.InitializeAsync();
    }

    public async Task DisposeAsync()
    {
        await _first.DisposeAsync();
        await _second.DisposeAsync();
        await _migratedOnly.DisposeAsync();
    }

    [Fact]
    public async Task TheSameSeedWritesTheSameRowsWhateverTheNumberOfWriters()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(45_000, seed: 7));

        var one = await new Seeder(_first.DataSource).SeedAsync(plan, new SeedOptions { Writers = 1 }, new SeedProgress(plan), CancellationToken.None);
        await new Seeder(_second.DataSource).SeedAsync(plan, new SeedOptions { Writers = 3 }, new SeedProgress(plan), CancellationToken.None);

        Assert.Equal(plan.TotalHighlights, await CountAsync(_first.DataSource, "highlights"));
        Assert.Equal(plan.TotalOwnerships, await CountAsync(_first.DataSource, "users_books"));
        Assert.Equal(45_000, await CountAsync(_first.DataSource, "users"));

        // The highlight quota reads each user's holdings: the seed counts them, as pushes keep them.
        Assert.Equal(0, await CountAsync(_first.DataSource, """
            users u LEFT JOIN (SELECT user_no, count(*) AS n, sum(octet_length(text) + coalesce(octet_length(note), 0)) AS bytes
                               FROM highlights GROUP BY user_no) h ON h.user_no = u.user_no
            WHERE u.highlight_count <> coalesce(h.n, 0) OR u.highlight_bytes <> coalesce(h.bytes, 0)
            """));
        Assert.Equal(one.Rows, plan.TotalRows);
        foreach (var table in TableKeys.Tables)
        {
            Assert.Equal(await DigestAsync(_first.DataSource, table), await DigestAsync(_second.DataSource, table));
        }
    }

    [Fact]
    public async Task TheSeededSchemaHasTheKeysAndIndexesOfTheMigrations()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(2_000, seed: 3));
        await new Seeder(_first.DataSource).SeedAsync(plan, new SeedOptions { Writers = 2 }, new SeedProgress(plan), CancellationToken.None);
        await new SchemaMigrator(_migratedOnly.DataSource).MigrateAsync(CancellationToken.None);

        var seeded = await SchemaAsync(_first.DataSource);
        Assert.Contains("highlights_pkey", seeded);
        Assert.Equal(await SchemaAsync(_migratedOnly.DataSource), seeded);
        Assert.Equal(0, await CountAsync(_first.DataSource, "pg_class WHERE relname = 'simulator_seed_keys'"));
    }

    [Fact]
    public async Task ASecondSeedIsRefusedUnlessAskedToReplaceTheData()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(1_000, seed: 3));
        await new Seeder(_first.DataSource).SeedAsync(plan, new SeedOptions { Writers = 2 }, new SeedProgress(plan), CancellationToken.None);

        await Assert.ThrowsAsync<SeedRefusedException>(() => new Seeder(_first.DataSource).SeedAsync(plan, new SeedOptions { Writers = 2 }, new SeedProgress(plan), CancellationToken.None));
        var again = await new Seeder(_first.DataSource).SeedAsync(plan, new SeedOptions { Writers = 2, Truncate = true }, new SeedProgress(plan), CancellationToken.None);

        Assert.Equal(plan.TotalHighlights, await CountAsync(_first.DataSource, "highlights"));
        Assert.Equal(plan.TotalRows, again.Rows);
    }

    [Fact]
    public async Task AnInterruptedSeedRunAgainWritesOnlyTheChunksItHadNotCommitted()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(3_000, seed: 5));
        var options = new SeedOptions { Writers = 2, ChunkUsers = 250 };
        await InterruptAfterChunksAsync(_first.DataSource, plan, options, chunks: 3);
        var committedBefore = await CountAsync(_first.DataSource, "simulator_seed_chunks");

        var resumed = await new Seeder(_first.DataSource).SeedAsync(plan, options, new SeedProgress(plan), CancellationToken.None);
        await new Seeder(_second.DataSource).SeedAsync(plan, options, new SeedProgress(plan), CancellationToken.None);

        Assert.InRange(committedBefore, 3, 12);
        Assert.Equal(committedBefore, resumed.ResumedChunks);
        foreach (var table in TableKeys.Tables)
        {
            Assert.Equal(await DigestAsync(_second.DataSource, table), await DigestAsync(_first.DataSource, table));
        }

        Assert.Equal(await SchemaAsync(_second.DataSource), await SchemaAsync(_first.DataSource));
        Assert.Equal(0, await CountAsync(_first.DataSource, "pg_class WHERE relname LIKE 'simulator_seed%'"));
    }

    [Fact]
    public async Task AnInterruptedSeedIsNotResumedWithOtherParametersAndTheRefusalNamesTheOptionsThatResumeIt()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(3_000, seed: 5));
        var options = new SeedOptions { Writers = 1, ChunkUsers = 250 };
        await InterruptAfterChunksAsync(_first.DataSource, plan, options, chunks: 2);
        var other = SeedPlan.Create(SeedScale.FromUsers(3_000, seed: 6));

        var refused = await Assert.ThrowsAsync<SeedRefusedException>(
            () => new Seeder(_first.DataSource).SeedAsync(other, options, new SeedProgress(other), CancellationToken.None));
        var replaced = await new Seeder(_first.DataSource).SeedAsync(other, options with { Truncate = true }, new SeedProgress(other), CancellationToken.None);

        Assert.Contains("--users 3000 --seed 5 --chunk-users 250", refused.Message, StringComparison.Ordinal);
        Assert.Contains("--truncate", refused.Message, StringComparison.Ordinal);
        Assert.Equal(0, replaced.ResumedChunks);
        Assert.Equal(other.TotalHighlights, await CountAsync(_first.DataSource, "highlights"));
        Assert.Equal(other.TotalOwnerships, await CountAsync(_first.DataSource, "users_books"));
    }

    [Fact]
    public async Task AnInterruptedSeedOfAnotherShapeIsNotResumedEvenWithTheSameOptions()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(3_000, seed: 5));
        var options = new SeedOptions { Writers = 1, ChunkUsers = 250 };
        await InterruptAfterChunksAsync(_first.DataSource, plan, options, chunks: 2);
        // As an earlier build's seed leaves it: the same options, rows of another shape.
        await using (var command = _first.DataSource.CreateCommand("UPDATE simulator_seed_run SET shape = 1"))
        {
            await command.ExecuteNonQueryAsync();
        }

        var refused = await Assert.ThrowsAsync<SeedRefusedException>(
            () => new Seeder(_first.DataSource).SeedAsync(plan, options, new SeedProgress(plan), CancellationToken.None));

        Assert.Contains("shape 1", refused.Message, StringComparison.Ordinal);
        Assert.Contains("--truncate", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheSeededTablesHaveTheServicesStorageParametersFromTheFirstPage()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(1_000, seed: 3));
        await new Seeder(_first.DataSource).SeedAsync(plan, new SeedOptions(), new SeedProgress(plan), CancellationToken.None);

        // The fill factor applies to the pages written after it is set: the seed's user pages hold
        // about 90% of the rows a page packed full holds only if the migration ran before the load.
        await using var command = _first.DataSource.CreateCommand(
            """
            CREATE TEMP TABLE packed AS SELECT * FROM users;
            SELECT (SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'users'),
                   (SELECT count(*)::float8 / count(DISTINCT (ctid::text::point)[0]) FROM users)
                 / (SELECT count(*)::float8 / count(DISTINCT (ctid::text::point)[0]) FROM packed)
            """);
        await using var reader = await command.ExecuteReaderAsync();
        Assert.True(await reader.ReadAsync());
        Assert.Contains("fillfactor=90", reader.GetString(0), StringComparison.Ordinal);
        Assert.InRange(reader.GetDouble(1), 0.85, 0.95);
    }

    [Fact]
    public async Task TheUsersAreWrittenOnceWithTheirHoldingsNotWrittenAndUpdated()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(5_000, seed: 3));
        await new Seeder(_first.DataSource).SeedAsync(plan, new SeedOptions { Writers = 1 }, new SeedProgress(plan), CancellationToken.None);

        // A user row is about 90 bytes with its page's free space; an UPDATE of every row after the
        // load would leave a dead version of each and about double it.
        await using var command = _first.DataSource.CreateCommand("SELECT pg_relation_size('users') / count(*) FROM users");
        Assert.InRange((long)(await command.ExecuteScalarAsync())!, 60, 130);
    }

    [Fact]
    public async Task TheHeaviestUsersListNamesTheHeaviestUsersAndTheirBooks()
    {
        var plan = SeedPlan.Create(SeedScale.FromUsers(5_000, seed: 11));
        await new Seeder(_first.DataSource).SeedAsync(plan, new SeedOptions { Writers = 2 }, new SeedProgress(plan), CancellationToken.None);
        var path = Path.Combine(Path.GetTempPath(), $"heaviest-{Guid.NewGuid():N}.tsv");
        HeaviestUsersFile.Write(path, plan, HeaviestUsersFile.Select(plan, top: 50));

        var listed = HeaviestUsersFile.Read(path);
        File.Delete(path);

        await using var command = _first.DataSource.CreateCommand(
            "SELECT user_no, count(*), array_agg(DISTINCT book_no ORDER BY book_no) FROM highlights GROUP BY user_no ORDER BY count(*) DESC, user_no LIMIT 50");
        await using var reader = await command.ExecuteReaderAsync();
        var i = 0;
        while (await reader.ReadAsync())
        {
            Assert.Equal(reader.GetInt64(0), listed[i].UserNo);
            Assert.Equal(reader.GetInt64(1), listed[i].Highlights);
            Assert.Equal(reader.GetFieldValue<long[]>(2), listed[i].Books.Order().ToArray());
            i++;
        }

        Assert.Equal(50, i);
    }

    /// <summary>Cancels a seed once <paramref name="chunks"/> chunks are committed, as Ctrl+C would.</summary>
    private static async Task InterruptAfterChunksAsync(NpgsqlDataSource dataSource, SeedPlan plan, SeedOptions options, int chunks)
    {
        using var interrupt = new CancellationTokenSource();
        var progress = new SeedProgress(plan);
        var committed = 0;
        progress.ChunkCommitted += _ =>
        {
            if (Interlocked.Increment(ref committed) >= chunks)
            {
                interrupt.Cancel();
            }
        };

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => new Seeder(dataSource).SeedAsync(plan, options, progress, interrupt.Token));
    }

    private static async Task<long> CountAsync(NpgsqlDataSource dataSource, string from)
    {
        await using var command = dataSource.CreateCommand($"SELECT count(*) FROM {from}");
        return (long)(await command.ExecuteScalarAsync())!;
    }

    private static async Task<string> DigestAsync(NpgsqlDataSource dataSource, string table)
    {
        await using var command = dataSource.CreateCommand($"SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) FROM {table} t");
        return (string)(await command.ExecuteScalarAsync())!;
    }

    private static async Task<string> SchemaAsync(NpgsqlDataSource dataSource)
    {
        await using var command = dataSource.CreateCommand("""
            SELECT string_agg(x, E'\n' ORDER BY x) FROM (
              SELECT conrelid::regclass || ' ' || conname || ' ' || pg_get_constraintdef(oid) AS x FROM pg_constraint WHERE connamespace = 'public'::regnamespace
              UNION ALL
              SELECT indexrelid::regclass || ' ' || pg_get_indexdef(indexrelid) FROM pg_index JOIN pg_class c ON c.oid = indrelid WHERE c.relnamespace = 'public'::regnamespace
            ) s
            """);
        return (string)(await command.ExecuteScalarAsync())!;
    }
}
