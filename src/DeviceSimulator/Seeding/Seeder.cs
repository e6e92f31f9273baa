using System.Diagnostics;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Migrations;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Seeding;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>What a seed wrote and how fast.</summary>
public sealed record SeedResult(
    long Users, long Books, long Ownerships, long Highlights, TimeSpan LoadTime, TimeSpan KeysTime, TimeSpan Elapsed)
{
    public long Rows => Users + Books + Ownerships + Highlights;

    /// <summary>Rows per second over the whole seed, keys and ANALYZE included.</summary>
    public double RowsPerSecond => Rows / Math.Max(Elapsed.TotalSeconds, 1e-9);
}

/// <summary>
/// Seeds a data set of <see cref="SeedPlan"/> into PostgreSQL: the service's own migrations first
/// (the schema is the service's, never re-declared here), then the keys dropped, the rows written
/// with binary COPY by several writers over disjoint chunks of users, the keys rebuilt and the
/// tables analysed.
/// </summary>
public sealed class Seeder(NpgsqlDataSource dataSource)
{
    /// <summary>Users per chunk: bounds the memory a writer holds and spreads the work evenly.</summary>
    public const int ChunkUsers = 20_000;

    public async Task<SeedResult> SeedAsync(
        SeedPlan plan, int writers, bool truncate, Action<long> progress, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(writers, 1);
        var total = Stopwatch.StartNew();
        await new SchemaMigrator(dataSource).MigrateAsync(cancellationToken);

        await using (var connection = await dataSource.OpenConnectionAsync(cancellationToken))
        {
            if (await TableKeys.HasStashAsync(connection, cancellationToken))
            {
                if (!truncate)
                {
                    throw new SeedRefusedException("An earlier seed stopped before it rebuilt the keys. Run the seed again with --truncate.");
                }

                await TruncateAsync(connection, cancellationToken);
                await TableKeys.RestoreAsync(connection, cancellationToken);
            await HoldingsRecount.RunAsync(connection, null, cancellationToken);
            }

            if (await HoldsUsersAsync(connection, cancellationToken))
            {
                if (!truncate)
                {
                    throw new SeedRefusedException("The database already holds users. Pass --truncate to replace them (every user, book, ownership and highlight is deleted).");
                }
            }

            await TruncateAsync(connection, cancellationToken);
            await TableKeys.DropAsync(connection, cancellationToken);
        }

        var load = Stopwatch.StartNew();
        var chunks = (int)((plan.Scale.Users + ChunkUsers - 1) / ChunkUsers);
        var nextChunk = -1;
        var tasks = new List<Task>();
        for (var w = 0; w < writers; w++)
        {
            var first = w == 0;
            tasks.Add(Task.Run(
                async () =>
                {
                    await using var connection = await dataSource.OpenConnectionAsync(cancellationToken);
                    if (first)
                    {
                        SeedCopy.Books(connection, plan, progress, cancellationToken);
                    }

                    int chunk;
                    while ((chunk = Interlocked.Increment(ref nextChunk)) < chunks)
                    {
                        var from = ((long)chunk * ChunkUsers) + 1;
                        var to = Math.Min(from + ChunkUsers - 1, plan.Scale.Users);
                        SeedCopy.Users(connection, plan, from, to, progress, cancellationToken);
                    }
                },
                cancellationToken));
        }

        await Task.WhenAll(tasks);
        load.Stop();

        var keys = Stopwatch.StartNew();
        await using (var connection = await dataSource.OpenConnectionAsync(cancellationToken))
        {
            await TableKeys.RestoreAsync(connection, cancellationToken);
            await HoldingsRecount.RunAsync(connection, null, cancellationToken);
            await using var analyze = new NpgsqlCommand("ANALYZE users, books, users_books, highlights", connection) { CommandTimeout = 0 };
            await analyze.ExecuteNonQueryAsync(cancellationToken);
        }

        keys.Stop();
        return new SeedResult(plan.Scale.Users, plan.Scale.Books, plan.TotalOwnerships, plan.TotalHighlights, load.Elapsed, keys.Elapsed, total.Elapsed);
    }

    private static async Task<bool> HoldsUsersAsync(NpgsqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand("SELECT EXISTS (SELECT 1 FROM users)", connection);
        return (bool)(await command.ExecuteScalarAsync(cancellationToken))!;
    }

    private static async Task TruncateAsync(NpgsqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand("TRUNCATE users, books, users_books, highlights", connection);
        await command.ExecuteNonQueryAsync(cancellationToken);
    }
}

/// <summary>A seed that would destroy data or build on a broken one; the message says what to do.</summary>
public sealed class SeedRefusedException(string message) : Exception(message);
