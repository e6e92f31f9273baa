using Kobo.Sync.Storage.Resilience;

namespace Kobo.Sync.Storage.Coalescing;

/// <summary>
/// The reads leaving together in one round trip. Its token is cancelled when every one of its
/// reads has been cancelled by its caller, which makes Npgsql cancel the statements in the server:
/// a device that gave up never leaves a query running for nobody. The cancel request is sent from
/// a <see cref="DatabaseCancellation"/> thread, never from the thread of the last caller to give up.
/// </summary>
public sealed class CoalescedBatch
{
    private readonly CancellationTokenSource _cancellation = new();
    private int _count = int.MaxValue;
    private int _cancelled;

    public List<CoalescedRead> Reads { get; } = [];

    public CancellationToken Token => _cancellation.Token;

    /// <summary>Called once every read has joined.</summary>
    public void Seal()
    {
        Interlocked.Exchange(ref _count, Reads.Count);
        if (Volatile.Read(ref _cancelled) >= Reads.Count)
        {
            DatabaseCancellation.CancelSoon(_cancellation);
        }
    }

    public void OnReadCancelled()
    {
        if (Interlocked.Increment(ref _cancelled) >= Volatile.Read(ref _count))
        {
            DatabaseCancellation.CancelSoon(_cancellation);
        }
    }
}
