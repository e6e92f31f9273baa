using System.Diagnostics;
using Kobo.Sync.Storage.Telemetry;
using Npgsql;

namespace Kobo.Sync.Storage.Coalescing;

/// <summary>
/// Sends concurrent device reads to PostgreSQL together: each read is its own prepared statement,
/// but the statements of reads that arrive while earlier ones are in flight leave in one
/// <see cref="NpgsqlBatch"/>, one round trip for many devices. No read ever waits for a timer: with
/// fewer than <see cref="ReadCoalescingOptions.MaxBatchesInFlight"/> batches in flight a read leaves at
/// once, alone if need be; only when that many are already on the wire do new reads queue, and the
/// next batch to leave takes every queued read (up to <see cref="ReadCoalescingOptions.MaxBatchSize"/>).
/// Under load that turns 32 round trips into a few, which is where the time of a one-row read goes
/// (docs/performance-history.md). Unlike Npgsql's multiplexing, every batch runs on an ordinary pooled
/// connection, so cancellation reaches the server: a batch whose callers have all given up is
/// cancelled there. With <paramref name="metrics"/>, each read's time from being handed over to its
/// result being read is recorded with the node that answered it.
/// </summary>
public sealed class ReadCoalescer(NpgsqlDataSource dataSource, ReadCoalescingOptions options, StorageMetrics? metrics = null)
{
    private readonly Queue<CoalescedRead> _queue = new();
    private readonly Lock _gate = new();
    private int _batchesInFlight;
    private long _batchesSent;

    /// <summary>Batches sent since start; a diagnostic for tests and benchmarks.</summary>
    public long BatchesSent => Interlocked.Read(ref _batchesSent);

    /// <summary>Queues the read (or sends it at once) and returns its result.</summary>
    public Task<T> ReadAsync<T>(CoalescedRead<T> read, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        if (metrics is not null)
        {
            read.EnqueuedTimestamp = Stopwatch.GetTimestamp();
        }

        read.WatchCancellation(cancellationToken);
        bool startBatch;
        lock (_gate)
        {
            _queue.Enqueue(read);
            startBatch = _batchesInFlight < options.MaxBatchesInFlight;
            if (startBatch)
            {
                _batchesInFlight++;
            }
        }

        if (startBatch)
        {
            _ = SendBatchesAsync();
        }

        return read.Task;
    }

    /// <summary>Sends batches while reads are queued, then gives its slot back.</summary>
    private async Task SendBatchesAsync()
    {
        while (TakeBatch() is { } batch)
        {
            Interlocked.Increment(ref _batchesSent);
            Exception? failure = null;
            try
            {
                await SendAsync(batch).ConfigureAwait(false);
            }
            catch (Exception exception)
            {
                failure = exception;
            }

            // Callers are answered only now, with the reader closed and the connection back in the pool:
            // the command's span has ended, so it never outlasts the request that waited for it.
            foreach (var read in batch.Reads)
            {
                read.StopWatching();
                read.Finish(failure);
            }
        }
    }

    private CoalescedBatch? TakeBatch()
    {
        var batch = new CoalescedBatch();
        lock (_gate)
        {
            while (batch.Reads.Count < options.MaxBatchSize && _queue.TryDequeue(out var read))
            {
                if (read.TryJoin(batch))
                {
                    batch.Reads.Add(read);
                }
                else
                {
                    read.StopWatching();
                }
            }

            if (batch.Reads.Count == 0)
            {
                _batchesInFlight--;
                return null;
            }
        }

        batch.Seal();
        return batch;
    }

    private async Task SendAsync(CoalescedBatch batch)
    {
        var token = batch.Token;
        await using var connection = await dataSource.OpenConnectionAsync(token).ConfigureAwait(false);
        var node = metrics is null ? null : DatabaseNodes.Of(connection);
        await using var command = new NpgsqlBatch(connection);
        foreach (var read in batch.Reads)
        {
            command.BatchCommands.Add(read.CreateCommand());
        }

        await using var reader = await command.ExecutePreparedReaderAsync(token).ConfigureAwait(false);
        for (var i = 0; i < batch.Reads.Count; i++)
        {
            if (i > 0 && !await reader.NextResultAsync(token).ConfigureAwait(false))
            {
                throw new InvalidOperationException($"The batch returned {i} result sets for {batch.Reads.Count} statements.");
            }

            var read = batch.Reads[i];
            await read.ReadAsync(reader, token).ConfigureAwait(false);
            metrics?.RecordDatabaseOperation(read.Operation, node!, Stopwatch.GetElapsedTime(read.EnqueuedTimestamp));
        }
    }
}
