using Npgsql;

namespace Kobo.Sync.Storage.Coalescing;

/// <summary>
/// One device read waiting in a <see cref="ReadCoalescer"/>: it knows its statement and how to read
/// its own result set, and carries the caller's completion. The caller's cancellation completes it
/// at once; the statement is cancelled in the server when every read of its batch has been cancelled.
/// </summary>
public abstract class CoalescedRead
{
    private const int Waiting = 0;
    private const int Joined = 1;
    private const int Cancelled = 2;

    private CancellationTokenRegistration _registration;
    private CoalescedBatch? _batch;
    private int _state;

    /// <summary>The kind of database operation, for the <c>operation</c> tag of the database duration metric.</summary>
    public abstract string Operation { get; }

    /// <summary>When the read was handed to the coalescer (<see cref="System.Diagnostics.Stopwatch"/> ticks), when measured.</summary>
    public long EnqueuedTimestamp { get; set; }

    /// <summary>The statement for this read, added to the batch it leaves in.</summary>
    public abstract NpgsqlBatchCommand CreateCommand();

    /// <summary>
    /// Reads this read's result set (the reader is positioned on it) and keeps the result; the caller
    /// gets it from <see cref="Finish"/>, once the batch's reader is closed.
    /// </summary>
    public abstract Task ReadAsync(NpgsqlDataReader reader, CancellationToken cancellationToken);

    /// <summary>
    /// Completes the caller: with the result read, if there is one, even when closing the batch failed
    /// after it was read; otherwise with <paramref name="failure"/>.
    /// </summary>
    public abstract void Finish(Exception? failure);

    public abstract void Cancel(CancellationToken cancellationToken);

    public abstract bool IsCompleted { get; }

    public void WatchCancellation(CancellationToken cancellationToken)
    {
        if (cancellationToken.CanBeCanceled)
        {
            _registration = cancellationToken.UnsafeRegister(
                static (state, token) => ((CoalescedRead)state!).OnCancelled(token), this);
        }
    }

    /// <summary>Called when the read joins a batch; false when it was cancelled already and must be left out.</summary>
    public bool TryJoin(CoalescedBatch batch)
    {
        _batch = batch;
        return Interlocked.CompareExchange(ref _state, Joined, Waiting) == Waiting;
    }

    public void StopWatching() => _registration.Dispose();

    private void OnCancelled(CancellationToken token)
    {
        var previous = Interlocked.Exchange(ref _state, Cancelled);
        Cancel(token);
        if (previous == Joined)
        {
            _batch!.OnReadCancelled();
        }
    }
}

/// <summary>A <see cref="CoalescedRead"/> with a typed result.</summary>
public abstract class CoalescedRead<T> : CoalescedRead
{
    private readonly TaskCompletionSource<T> _completion = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private T? _result;
    private bool _hasResult;

    public Task<T> Task => _completion.Task;

    public override bool IsCompleted => _completion.Task.IsCompleted;

    public override async Task ReadAsync(NpgsqlDataReader reader, CancellationToken cancellationToken)
    {
        _result = await ReadResultAsync(reader, cancellationToken).ConfigureAwait(false);
        _hasResult = true;
    }

    /// <summary>Reads the result from this read's result set.</summary>
    protected abstract Task<T> ReadResultAsync(NpgsqlDataReader reader, CancellationToken cancellationToken);

    public override void Finish(Exception? failure)
    {
        if (_hasResult)
        {
            _completion.TrySetResult(_result!);
        }
        else
        {
            _completion.TrySetException(failure ?? new InvalidOperationException("The batch ended without this read's result."));
        }
    }

    public override void Cancel(CancellationToken cancellationToken) => _completion.TrySetCanceled(cancellationToken);
}
