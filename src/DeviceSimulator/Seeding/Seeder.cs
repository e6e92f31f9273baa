using System.Diagnostics;
using Kobo.Sync.Storage.Schema;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>What a seed wrote and how fast.</summary>
public sealed record SeedResult(
    long Users, long Books, long Ownerships, long Highlights, TimeSpan LoadTime, TimeSpan KeysTime, TimeSpan Elapsed, int ResumedChunks)
{
    public long Rows => Users + Books + Ownerships + Highlights;

    /// <summary>Rows per second over the whole seed, keys and ANALYZE included.</summary>
    public double RowsPerSecond => Rows / Math.Max(Elapsed.TotalSeconds, 1e-9);
}

/// <summary>
/// Seeds a data set of <see cref="SeedPlan"/> into PostgreSQL: the service's own migrations first
/// (the schema and the large tables' storage parameters are the service's, never re-declared here),
/// then the keys dropped, the rows written with binary COPY by
/// several writers over disjoint chunks of users, one transaction per chunk, the keys rebuilt and
/// the tables analysed.
/// <para>
/// An interrupted seed leaves its parameters and committed chunks behind (<see cref="SeedMarker"/>):
/// the same seed run again writes only the missing chunks; another one is refused, with the options
/// that resume the first, unless told to replace it.
/// </para>
/// </summary>
public sealed class Seeder(NpgsqlDataSource dataSource)
{
    public async Task<SeedResult> SeedAsync(SeedPlan plan, SeedOptions options, SeedProgress progress, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(options.Writers, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(options.ChunkUsers, 1);
        var total = Stopwatch.StartNew();
        await new SchemaMigrator(dataSource).MigrateAsync(cancellationToken);

        var parameters = SeedParameters.Of(plan, options.ChunkUsers, options.KeysDuringLoad);
        HashSet<int> committed;
        await using (var connection = await dataSource.OpenConnectionAsync(cancellationToken))
        {
            var interrupted = await SeedMarker.ReadAsync(connection, cancellationToken);
            if (interrupted == parameters && !options.Truncate)
            {
                committed = await SeedMarker.CommittedChunksAsync(connection, cancellationToken);
            }
            else
            {
                if (!options.Truncate)
                {
                    await RefuseAsync(connection, interrupted, parameters, cancellationToken);
                }

                await TruncateAsync(connection, cancellationToken);
                if (await TableKeys.HasStashAsync(connection, cancellationToken))
                {
                    await TableKeys.RestoreAsync(connection, cancellationToken);
                }

                if (!options.KeysDuringLoad)
                {
                    await TableKeys.DropAsync(connection, cancellationToken);
                }

                await SeedMarker.StartAsync(connection, parameters, cancellationToken);
                committed = [];
            }
        }

        var chunks = (int)((plan.Scale.Users + (long)options.ChunkUsers - 1) / options.ChunkUsers);
        CountResumed(plan, options.ChunkUsers, committed, progress);
        var load = Stopwatch.StartNew();
        var pending = new Queue<int>(Enumerable.Range(SeedMarker.BooksChunk, chunks + 1).Where(c => !committed.Contains(c)));
        var tasks = new List<Task>();
        for (var w = 0; w < options.Writers; w++)
        {
            tasks.Add(Task.Run(
                async () =>
                {
                    await using var connection = await dataSource.OpenConnectionAsync(cancellationToken);
                    while (true)
                    {
                        int chunk;
                        lock (pending)
                        {
                            if (!pending.TryDequeue(out chunk))
                            {
                                return;
                            }
                        }

                        WriteChunk(connection, plan, options.ChunkUsers, chunk, progress, cancellationToken);
                        progress.Committed(chunk);
                    }
                },
                cancellationToken));
        }

        await Task.WhenAll(tasks);
        load.Stop();
        progress.LoadEnded();

        var keys = Stopwatch.StartNew();
        await using (var connection = await dataSource.OpenConnectionAsync(cancellationToken))
        {
            if (await TableKeys.HasStashAsync(connection, cancellationToken))
            {
                await TableKeys.RestoreAsync(connection, cancellationToken, progress);
            }

            progress.Step("ANALYZE");
            await using (var analyze = new NpgsqlCommand("ANALYZE users, books, users_books, highlights", connection)
            {
                CommandTimeout = 0,
            })
            {
                await analyze.ExecuteNonQueryAsync(cancellationToken);
            }

            await SeedMarker.DropAsync(connection, cancellationToken);
        }

        keys.Stop();
        return new SeedResult(
            plan.Scale.Users, plan.Scale.Books, plan.TotalOwnerships, plan.TotalHighlights,
            load.Elapsed, keys.Elapsed, total.Elapsed, committed.Count);
    }

    /// <summary>Writes one chunk (the books, or a range of users) and records it, in one transaction.</summary>
    private static void WriteChunk(
        NpgsqlConnection connection, SeedPlan plan, int chunkUsers, int chunk, SeedProgress progress, CancellationToken cancellationToken)
    {
        using var transaction = connection.BeginTransaction();
        if (chunk == SeedMarker.BooksChunk)
        {
            SeedCopy.Books(connection, plan, progress, cancellationToken);
        }
        else
        {
            var (from, to) = UsersOf(plan, chunkUsers, chunk);
            SeedCopy.Users(connection, plan, from, to, progress, cancellationToken);
        }

        SeedMarker.Commit(connection, chunk);
        transaction.Commit();
    }

    private static (long From, long To) UsersOf(SeedPlan plan, int chunkUsers, int chunk)
    {
        var from = ((long)chunk * chunkUsers) + 1;
        return (from, Math.Min(from + chunkUsers - 1, plan.Scale.Users));
    }

    private static void CountResumed(SeedPlan plan, int chunkUsers, HashSet<int> committed, SeedProgress progress)
    {
        foreach (var chunk in committed)
        {
            if (chunk == SeedMarker.BooksChunk)
            {
                progress.AddResumed(SeedTable.Books, plan.Scale.Books);
                continue;
            }

            var (from, to) = UsersOf(plan, chunkUsers, chunk);
            long ownerships = 0, highlights = 0;
            for (var u = from; u <= to; u++)
            {
                var count = plan.HighlightsPerUser[(int)u - 1];
                highlights += count;
                ownerships += plan.OwnedBooks(u, count);
            }

            progress.AddResumed(SeedTable.Users, to - from + 1);
            progress.AddResumed(SeedTable.Ownerships, ownerships);
            progress.AddResumed(SeedTable.Highlights, highlights);
        }
    }

    private static async Task RefuseAsync(
        NpgsqlConnection connection, SeedParameters? interrupted, SeedParameters wanted, CancellationToken cancellationToken)
    {
        if (interrupted is not null && interrupted.Shape != wanted.Shape)
        {
            throw new SeedRefusedException(
                $"An interrupted seed of another build's rows (shape {interrupted.Shape}) is in this database; " +
                $"this build makes shape {wanted.Shape} "
                + "and cannot resume it. Pass --truncate to replace it.");
        }

        if (interrupted is not null)
        {
            throw new SeedRefusedException(
                $"An interrupted seed with other parameters is in this database ({interrupted.Options}; this one is {wanted.Options}). "
                + $"Run the seed again with {interrupted.Options} to resume it, or pass --truncate to replace it.");
        }

        if (await TableKeys.HasStashAsync(connection, cancellationToken))
        {
            throw new SeedRefusedException(
                "An earlier seed stopped before it rebuilt the keys and left no record of its parameters. " +
                "Run the seed again with --truncate.");
        }

        await using var command = new NpgsqlCommand("SELECT EXISTS (SELECT 1 FROM users)", connection);
        if ((bool)(await command.ExecuteScalarAsync(cancellationToken))!)
        {
            throw new SeedRefusedException(
                "The database already holds users. Pass --truncate to replace them (every user, book, " +
                "ownership and highlight is deleted).");
        }
    }

    private static async Task TruncateAsync(NpgsqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand("TRUNCATE users, books, users_books, highlights", connection);
        await command.ExecuteNonQueryAsync(cancellationToken);
    }
}

/// <summary>A seed that would destroy data or build on a broken one; the message says what to do.</summary>
public sealed class SeedRefusedException(string message) : Exception(message);
