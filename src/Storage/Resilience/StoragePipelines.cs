using System.Collections.Frozen;
using Microsoft.Extensions.Options;
using Polly;
using Polly.CircuitBreaker;
using Polly.Retry;
using Polly.Timeout;

namespace Kobo.Sync.Storage.Resilience;

/// <summary>
/// The named Polly pipelines every database call runs in, one per kind of call: a timeout of what is left of the
/// request's budget (<see cref="RequestBudget"/>), a retry for reads and replay-safe writes only, and a circuit
/// breaker shared by all (the standby reads get one of their own when they have a read source). A call whose size
/// its caller chose (<see cref="CallCost.CallerShaped"/>) is refused while its circuit is not closed but runs
/// outside it. The only retry layer of a database call; the layers, and why the pipelines are typed on
/// <see cref="object"/>: docs/architecture.md, "Failover and resilience".
/// </summary>
public sealed class StoragePipelines
{
    /// <summary>A row by key (user by id).</summary>
    public const string PointRead = "storage-point-read";

    /// <summary>A key range (a page of highlights).</summary>
    public const string RangeRead = "storage-range-read";

    /// <summary>A write whose replay could change the outcome: never retried.</summary>
    public const string Write = "storage-write";

    /// <summary>
    /// A write that is provably harmless to replay, such as an upsert keyed by a device-chosen id that
    /// stores the same row again: retried like a read.
    /// </summary>
    public const string IdempotentWrite = "storage-idempotent-write";

    /// <summary>
    /// A read that must see the primary (a sync pull reads after the device's own writes): retried, behind the primary's circuit.
    /// </summary>
    public const string PrimaryRead = "storage-primary-read";

    private static readonly ResiliencePropertyKey<CancellationToken> CallerToken = new("kobo.caller-token");

    /// <summary>
    /// gRPC callers with a shorter deadline keep it: the binding's own deadline fires first and answers DEADLINE_EXCEEDED.
    /// </summary>
    private static readonly TimeSpan MinimumTimeout = TimeSpan.FromMilliseconds(1);

    private readonly FrozenDictionary<string, ResiliencePipeline<object?>> _pipelines;
    private readonly FrozenDictionary<string, ResiliencePipeline<object?>> _callerShaped;
    private readonly FrozenDictionary<string, CircuitBreakerStateProvider> _circuits;
    private readonly ResilienceOptions _options;
    private readonly TimeProvider _clock;
    private readonly Action? _dropConnections;

    /// <param name="dropConnections">
    /// Empties the connection pools, so that the connection in use is closed when it is returned: called
    /// when a call fails because a connection's prepared statements are out of step with the server
    /// (<see cref="StorageFaults.IsStatementOutOfStep"/>), before the call is tried again.
    /// </param>
    public StoragePipelines(
        IOptions<ResilienceOptions> options, IResilienceEvents events, TimeProvider clock,
        bool separateReadSource = false, Action? dropConnections = null)
    {
        _options = options.Value;
        _clock = clock;
        _dropConnections = dropConnections;
        Breaker = new CircuitBreakerStateProvider();
        var breaker = BuildBreaker(_options, events, clock, Breaker);
        ReadBreaker = separateReadSource ? new CircuitBreakerStateProvider() : Breaker;
        var readBreaker = separateReadSource ? BuildBreaker(_options, events, clock, ReadBreaker) : breaker;

        var pipelines = new Dictionary<string, ResiliencePipeline<object?>>();
        var callerShaped = new Dictionary<string, ResiliencePipeline<object?>>();
        var circuits = new Dictionary<string, CircuitBreakerStateProvider>();
        foreach (var (name, retries) in new[]
        {
            (PointRead, true), (RangeRead, true), (Write, false), (IdempotentWrite, true), (PrimaryRead, true),
        })
        {
            var reads = name is PointRead or RangeRead;
            pipelines[name] = Build(name, retries, reads ? readBreaker : breaker, events);
            callerShaped[name] = Build(name, retries, circuit: null, events);
            circuits[name] = reads ? ReadBreaker : Breaker;
        }

        _pipelines = pipelines.ToFrozenDictionary();
        _callerShaped = callerShaped.ToFrozenDictionary();
        _circuits = circuits.ToFrozenDictionary();
    }

    /// <summary>The shared circuit's state (closed, open, half-open), for readiness and tests.</summary>
    public CircuitBreakerStateProvider Breaker { get; }

    /// <summary>The circuit of the lag-tolerant reads: <see cref="Breaker"/> itself unless reads have a source of their own.</summary>
    public CircuitBreakerStateProvider ReadBreaker { get; }

    /// <summary>
    /// Runs one database call in the named pipeline. The database being unreachable, too slow for the
    /// budget or cut off by the circuit surfaces as <see cref="StorageUnavailableException"/>; the
    /// caller's own cancellation (deadline, disconnect) as <see cref="OperationCanceledException"/>.
    /// </summary>
    public Task<TResult> RunAsync<TResult, TState>(
        string name, TState state, Func<TState, CancellationToken, Task<TResult>> call, CancellationToken cancellationToken) =>
        RunCoreAsync(name, CallCost.Bounded, state, call, detach: true, cancellationToken);

    /// <summary>
    /// <see cref="RunAsync{TResult, TState}(string, TState, Func{TState, CancellationToken, Task{TResult}}, CancellationToken)"/> for a
    /// call of the given <see cref="CallCost"/>.
    /// </summary>
    public Task<TResult> RunAsync<TResult, TState>(
        string name, CallCost cost, TState state,
        Func<TState, CancellationToken, Task<TResult>> call, CancellationToken cancellationToken) =>
        RunCoreAsync(name, cost, state, call, detach: true, cancellationToken);

    /// <summary>
    /// <see cref="RunAsync{TResult, TState}(string, TState, Func{TState, CancellationToken, Task{TResult}}, CancellationToken)"/> for a
    /// call that returns nothing.
    /// </summary>
    public Task RunAsync<TState>(
        string name, TState state, Func<TState, CancellationToken, Task> call, CancellationToken cancellationToken) =>
        RunCoreAsync(
            name, CallCost.Bounded, (state, call),
            static async (s, ct) =>
            {
                await s.call(s.state, ct).ConfigureAwait(false);
                return true;
            },
            detach: true, cancellationToken);

    /// <summary>
    /// <see cref="RunAsync{TResult, TState}(string, TState, Func{TState, CancellationToken, Task{TResult}}, CancellationToken)"/> for a
    /// call through the read coalescer, which is given the pipeline's token as it is. The coalescer already does what
    /// <see cref="DatabaseCancellation"/> would: a read whose token fires returns at once, and a batch nobody waits for any more is
    /// cancelled on a canceller thread, never on the thread that fired the token.
    /// </summary>
    public Task<TResult> RunCoalescedAsync<TResult, TState>(
        string name, TState state, Func<TState, CancellationToken, Task<TResult>> call, CancellationToken cancellationToken) =>
        RunCoreAsync(name, CallCost.Bounded, state, call, detach: false, cancellationToken);

    /// <summary>
    /// <see cref="RunCoalescedAsync{TResult, TState}(string, TState, Func{TState, CancellationToken, Task{TResult}}, CancellationToken)"/>
    /// for a call of the given <see cref="CallCost"/>.
    /// </summary>
    public Task<TResult> RunCoalescedAsync<TResult, TState>(
        string name, CallCost cost, TState state,
        Func<TState, CancellationToken, Task<TResult>> call, CancellationToken cancellationToken) =>
        RunCoreAsync(name, cost, state, call, detach: false, cancellationToken);

    private async Task<TResult> RunCoreAsync<TResult, TState>(
        string name, CallCost cost, TState state, Func<TState, CancellationToken, Task<TResult>> call,
        bool detach, CancellationToken cancellationToken)
    {
        ResiliencePipeline<object?> pipeline;
        if (cost == CallCost.CallerShaped)
        {
            // Outside the circuit, but never past it: while it is open or probing, the database is
            // presumed unwell and a heavy call would only add to its load.
            if (_circuits[name].CircuitState != CircuitState.Closed)
            {
                RequestBudget.MarkCircuitRejected();
                throw new StorageUnavailableException(
                    "The database is unavailable; calls are refused until it answers again.", BreakDuration);
            }

            pipeline = _callerShaped[name];
        }
        else
        {
            pipeline = _pipelines[name];
        }

        var context = ResilienceContextPool.Shared.Get(name, cancellationToken);
        context.Properties.Set(CallerToken, cancellationToken);
        try
        {
            return (TResult)(await pipeline.ExecuteAsync(
                static (ctx, s) => AsObjectAsync(s.detach
                    ? DatabaseCancellation.RunAsync(s.state, s.call, ctx.CancellationToken)
                    : s.call(s.state, ctx.CancellationToken)),
                context,
                (call, state, detach)).ConfigureAwait(false))!;
        }
        catch (BrokenCircuitException e)
        {
            RequestBudget.MarkCircuitRejected();
            throw new StorageUnavailableException(
                "The database is unavailable; calls are refused until it answers again.", e.RetryAfter ?? BreakDuration, e);
        }
        catch (TimeoutRejectedException e) when (cancellationToken.IsCancellationRequested)
        {
            // The caller's own deadline or disconnect came at the same moment: theirs decides.
            throw new OperationCanceledException(e.Message, e, cancellationToken);
        }
        catch (TimeoutRejectedException e)
        {
            throw new StorageUnavailableException("The database did not answer within the request's time budget.", BreakDuration, e);
        }
        catch (Exception e) when (StorageFaults.IsTransient(e) && !cancellationToken.IsCancellationRequested)
        {
            DropConnectionsIfOutOfStep(e);
            throw new StorageUnavailableException("The connection to the database failed.", BreakDuration, e);
        }
        finally
        {
            ResilienceContextPool.Shared.Return(context);
        }
    }

    private static async ValueTask<object?> AsObjectAsync<TResult>(Task<TResult> call) => await call.ConfigureAwait(false);

    private TimeSpan BreakDuration => TimeSpan.FromMilliseconds(_options.BreakerBreakMs);

    private TimeSpan Timeout()
    {
        var remaining = RequestBudget.Remaining(_clock) ?? TimeSpan.FromMilliseconds(_options.RequestBudgetMs);
        // Zero or less would switch Polly's timeout off; a spent budget must fail at once instead.
        return remaining > MinimumTimeout ? remaining : MinimumTimeout;
    }

    private void DropConnectionsIfOutOfStep(Exception? failure)
    {
        if (failure is not null && StorageFaults.IsStatementOutOfStep(failure))
        {
            _dropConnections?.Invoke();
        }
    }

    private static CancellationToken Caller(ResilienceContext context) =>
        context.Properties.TryGetValue(CallerToken, out var token) ? token : CancellationToken.None;

    private ResiliencePipeline<object?> Build(string name, bool retries, ResiliencePipeline<object?>? circuit, IResilienceEvents events)
    {
        var builder = new ResiliencePipelineBuilder<object?> { Name = name, TimeProvider = _clock };
        builder.AddTimeout(new TimeoutStrategyOptions
        {
            TimeoutGenerator = _ => ValueTask.FromResult(Timeout()),
            OnTimeout = _ =>
            {
                events.TimedOut(name);
                return default;
            },
        });
        if (retries && _options.RetryAttempts > 0)
        {
            builder.AddRetry(new RetryStrategyOptions<object?>
            {
                MaxRetryAttempts = _options.RetryAttempts,
                Delay = TimeSpan.FromMilliseconds(_options.RetryBaseDelayMs),
                BackoffType = DelayBackoffType.Exponential,
                UseJitter = true,
                ShouldHandle = args => ValueTask.FromResult(
                    args.Outcome.Exception is { } e && StorageFaults.IsTransient(e) && !Caller(args.Context).IsCancellationRequested),
                OnRetry = args =>
                {
                    events.Retrying(name, args.AttemptNumber + 1, args.RetryDelay, args.Outcome.Exception);
                    DropConnectionsIfOutOfStep(args.Outcome.Exception);
                    return default;
                },
            });
        }

        if (circuit is not null)
        {
            builder.AddPipeline(circuit);
        }

        return builder.Build();
    }

    private static ResiliencePipeline<object?> BuildBreaker(
        ResilienceOptions options, IResilienceEvents events, TimeProvider clock, CircuitBreakerStateProvider state) =>
        new ResiliencePipelineBuilder<object?> { TimeProvider = clock }
            .AddCircuitBreaker(new CircuitBreakerStrategyOptions<object?>
            {
                FailureRatio = options.BreakerFailureRatio,
                SamplingDuration = TimeSpan.FromMilliseconds(options.BreakerSamplingMs),
                MinimumThroughput = options.BreakerMinimumThroughput,
                BreakDuration = TimeSpan.FromMilliseconds(options.BreakerBreakMs),
                StateProvider = state,
                ShouldHandle = args => ValueTask.FromResult(
                    args.Outcome.Exception is { } e && StorageFaults.CountsAgainstTheDatabase(e, Caller(args.Context))),
                OnOpened = args =>
                {
                    events.CircuitOpened(args.BreakDuration, args.Outcome.Exception);
                    return default;
                },
                OnHalfOpened = _ =>
                {
                    events.CircuitHalfOpened();
                    return default;
                },
                OnClosed = _ =>
                {
                    events.CircuitClosed();
                    return default;
                },
            })
            .Build();
}
