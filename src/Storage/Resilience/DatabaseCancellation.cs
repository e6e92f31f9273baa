using System.Collections.Concurrent;

namespace Kobo.Sync.Storage.Resilience;

/// <summary>
/// Cancels database commands on a few dedicated threads, away from the thread that noticed the deadline.
/// Npgsql sends its cancel request synchronously inside the cancellation callback (over a second connection to
/// the server), so a database that does not answer would hold whichever thread cancelled the token (a timeout
/// timer, a disconnect, a gRPC deadline), and on two cores a few such cancellations starve every other request.
/// A command therefore never gets the request's token: it gets one from <see cref="Detach"/>, which follows the
/// request's token but is cancelled here; the request's own wait ends at once (<see cref="RunAsync"/>).
/// <para>
/// One wait remains in Npgsql: a command that ends while its cancel request is still being sent waits for the
/// callback when it disposes its registration. At most <see cref="Cancellers"/> callbacks run at once, so the
/// pool's minimum is raised by as many threads (docs/architecture.md, "How it works", after the storage pipelines).
/// </para>
/// </summary>
public static class DatabaseCancellation
{
    /// <summary>
    /// Dedicated threads sending cancel requests; several, so that an unreachable node does not hold up the cancellations meant for the
    /// others.
    /// </summary>
    public const int Cancellers = 4;

    private static readonly BlockingCollection<CancellationTokenSource> Pending;

    /// <summary>
    /// An explicit static constructor: the cancellers start, and the pool's minimum rises, on the first use of any member.
    /// </summary>
    static DatabaseCancellation()
    {
        Pending = StartCancellers();
    }

    [ThreadStatic]
    private static CancellationTokenSource? t_spare;

    /// <summary>
    /// A token for a database command that is cancelled shortly after <paramref name="token"/> is, on a
    /// canceller thread. Dispose the scope once the command has ended.
    /// </summary>
    public static DetachedCancellation Detach(CancellationToken token)
    {
        if (!token.CanBeCanceled)
        {
            return default;
        }

        var source = t_spare ?? new CancellationTokenSource();
        t_spare = null;
        var registration = token.UnsafeRegister(static state => CancelSoon((CancellationTokenSource)state!), source);
        return new DetachedCancellation(token, source, registration);
    }

    /// <summary>
    /// Runs a database call with a detached token and waits for it only until
    /// <paramref name="cancellationToken"/> fires: the caller then gets its cancellation at once, even
    /// if the call has not noticed yet (against a black-holed server it would not for a long time), and
    /// the call is cancelled from a canceller thread. The abandoned call ends on its own (its
    /// connection is broken and leaves the pool).
    /// </summary>
    public static async Task<TResult> RunAsync<TState, TResult>(
        TState state, Func<TState, CancellationToken, Task<TResult>> call, CancellationToken cancellationToken)
    {
        using var command = Detach(cancellationToken);
        var running = call(state, command.Token);
        try
        {
            return await running.WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (OperationCanceledException) when (!running.IsCompleted)
        {
            _ = running.ContinueWith(
                static t => _ = t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted, TaskScheduler.Default);
            throw;
        }
    }

    /// <summary>Cancels <paramref name="source"/> on a canceller thread, never on the caller's.</summary>
    public static void CancelSoon(CancellationTokenSource source) => Pending.Add(source);

    private static BlockingCollection<CancellationTokenSource> StartCancellers()
    {
        ThreadPool.GetMinThreads(out var workers, out var completionPorts);
        ThreadPool.SetMinThreads(Math.Max(workers, Environment.ProcessorCount + Cancellers), completionPorts);
        var pending = new BlockingCollection<CancellationTokenSource>(new ConcurrentQueue<CancellationTokenSource>());
        for (var i = 0; i < Cancellers; i++)
        {
            new Thread(() => Cancel(pending)) { IsBackground = true, Name = $"db-cancel-{i}" }.Start();
        }

        return pending;
    }

    private static void Cancel(BlockingCollection<CancellationTokenSource> pending)
    {
        foreach (var source in pending.GetConsumingEnumerable())
        {
            try
            {
                source.Cancel();
            }
            catch (Exception e) when (e is ObjectDisposedException or AggregateException)
            {
                // A callback failed or its command had already ended; nothing is left to cancel.
            }
        }
    }

    /// <summary>The token handed to a command, and its link to the request's token.</summary>
    public readonly struct DetachedCancellation(
        CancellationToken followed, CancellationTokenSource source, CancellationTokenRegistration registration) : IDisposable
    {
        public CancellationToken Token => source?.Token ?? CancellationToken.None;

        public void Dispose()
        {
            if (source is null || !registration.Unregister())
            {
                // The link already fired: the source belongs to the canceller and is never reused.
                return;
            }

            if (followed.IsCancellationRequested)
            {
                // The request's wait ended on its cancellation (which can run this on the cancelling
                // thread) before the link's own callback did: the command still has to be cancelled.
                CancelSoon(source);
            }
            else if (source.TryReset())
            {
                t_spare = source;
            }
        }
    }
}
