using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Storage;

/// <summary>
/// A read batch cancelled while the rows of one of its statements are arriving, on a data source
/// built as the service builds its own (automatic preparation on) and a pool of one connection, so
/// the next batch runs on the connection the cancelled one left behind. The batch is shaped like a
/// pull: a cheap statement, a long range that is cancelled in the middle, more statements after it.
/// </summary>
public sealed class PreparedBatchesTests(PostgresDatabase db) : IClassFixture<PostgresDatabase>
{
    /// <summary>Rows long enough to leave the server one by one; the third sleeps until it is cancelled.</summary>
    private const string Range =
        "SELECT g, repeat('x', 10000) FROM generate_series(1, 5) g WHERE CASE WHEN g < 3 THEN true ELSE (SELECT true FROM pg_sleep($1)) END";

    [Fact]
    public async Task APreparedBatchCancelledWhileItsRowsArriveLeavesItsConnectionServingTheSameBatch()
    {
        await using var dataSource = SinglePooledConnection();

        await RunAsync(dataSource, static (batch, ct) => batch.ExecutePreparedReaderAsync(ct), stallSeconds: 0);
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() =>
            RunAsync(dataSource, static (batch, ct) => batch.ExecutePreparedReaderAsync(ct), stallSeconds: 600));

        for (var i = 0; i < 3; i++)
        {
            Assert.Equal(5, await RunAsync(dataSource, static (batch, ct) => batch.ExecutePreparedReaderAsync(ct), stallSeconds: 0));
        }
    }

    /// <summary>
    /// Why the batches are prepared first: with automatic preparation, the same cancellation leaves the
    /// statements after the cancelled one recorded as prepared on the connection, and the server never
    /// had them. If this starts to pass, Npgsql takes that record back itself now, and
    /// <see cref="PreparedBatches"/> is no longer needed.
    /// </summary>
    [Fact]
    public async Task WithAutomaticPreparationTheSameCancellationLeavesTheConnectionFailingWith26000()
    {
        await using var dataSource = SinglePooledConnection();

        await RunAsync(dataSource, static (batch, ct) => batch.ExecuteReaderAsync(ct), stallSeconds: 0);
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() =>
            RunAsync(dataSource, static (batch, ct) => batch.ExecuteReaderAsync(ct), stallSeconds: 600));

        var failure = await Assert.ThrowsAsync<PostgresException>(() =>
            RunAsync(dataSource, static (batch, ct) => batch.ExecuteReaderAsync(ct), stallSeconds: 0));
        Assert.Equal(PostgresErrorCodes.InvalidSqlStatementName, failure.SqlState);
    }

    /// <summary>
    /// The service's data source on one pooled connection. The server's confirmation of a cancel may
    /// take as long as it likes (on a busy machine it can outlast the service's 250 ms, and Npgsql would
    /// then close the connection instead): the connection a cancelled batch leaves goes back to the pool.
    /// </summary>
    private NpgsqlDataSource SinglePooledConnection() =>
        StorageDataSource.Create(new NpgsqlConnectionStringBuilder(db.ConnectionString) { MaxPoolSize = 1, CancellationTimeout = 30_000 }.ConnectionString);

    /// <summary>
    /// Runs the batch and reads all of it. With a stall, the range's third row sleeps in the server; the
    /// batch is cancelled once the range's first row has been read, while the next read waits.
    /// Returns the range's row count.
    /// </summary>
    private static async Task<int> RunAsync(
        NpgsqlDataSource dataSource, Func<NpgsqlBatch, CancellationToken, Task<NpgsqlDataReader>> execute, int stallSeconds)
    {
        using var cancellation = CancellationTokenSource.CreateLinkedTokenSource(TestTimeout.Token);
        await using var connection = await dataSource.OpenConnectionAsync(TestTimeout.Token);
        await using var batch = new NpgsqlBatch(connection)
        {
            BatchCommands =
            {
                new NpgsqlBatchCommand("SELECT 1"),
                new NpgsqlBatchCommand(Range) { Parameters = { new NpgsqlParameter<double> { TypedValue = stallSeconds } } },
                new NpgsqlBatchCommand("SELECT 2"),
                new NpgsqlBatchCommand("SELECT 3"),
            },
        };
        await using var reader = await execute(batch, cancellation.Token);
        await reader.NextResultAsync(cancellation.Token);
        var rows = 0;
        while (true)
        {
            var next = reader.ReadAsync(cancellation.Token);
            if (rows == 1 && stallSeconds > 0)
            {
                await cancellation.CancelAsync();
            }

            if (!await next)
            {
                break;
            }

            rows++;
        }

        Assert.True(await reader.NextResultAsync(cancellation.Token));
        Assert.True(await reader.NextResultAsync(cancellation.Token));
        return rows;
    }
}
