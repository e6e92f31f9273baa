using Polly;
using Polly.Retry;
using Polly.Timeout;

namespace Kobo.Sync.DeviceSimulator.Devices;

/// <summary>
/// What an e-reader does when a sync attempt fails: it waits (exponential backoff with jitter, or
/// the server's <c>Retry-After</c> on 429 and 503 when given), tries again, and after
/// <see cref="DeviceBehaviour.MaxRetries"/> retries gives up until its next scheduled sync. Each
/// attempt has its own timeout. One Polly pipeline, shared by every device (it holds no device state).
/// </summary>
public sealed class DeviceRetryPipeline
{
    private readonly ResiliencePipeline<SyncAttempt> _pipeline;

    public DeviceRetryPipeline(DeviceBehaviour behaviour, TimeProvider? timeProvider = null)
    {
        var builder = new ResiliencePipelineBuilder<SyncAttempt>();
        if (timeProvider is not null)
        {
            builder.TimeProvider = timeProvider;
        }

        if (behaviour.MaxRetries > 0)
        {
            builder.AddRetry(new RetryStrategyOptions<SyncAttempt>
            {
                MaxRetryAttempts = behaviour.MaxRetries,
                BackoffType = DelayBackoffType.Exponential,
                UseJitter = true,
                Delay = TimeSpan.FromMilliseconds(behaviour.BaseDelayMs),
                MaxDelay = TimeSpan.FromMilliseconds(behaviour.MaxDelayMs),
                ShouldHandle = static args => ValueTask.FromResult(args.Outcome switch
                {
                    { Exception: TimeoutRejectedException or HttpRequestException or IOException } => true,
                    { Exception: null, Result.Retryable: true } => true,
                    _ => false,
                }),
                DelayGenerator = static args => ValueTask.FromResult(args.Outcome.Result.RetryAfter),
            });
        }

        _pipeline = builder.AddTimeout(TimeSpan.FromMilliseconds(behaviour.TimeoutMs)).Build();
    }

    /// <summary>Runs one sync with the device's retries: the last outcome and how many attempts it took.</summary>
    public async ValueTask<(SyncAttempt Outcome, int Attempts)> SyncAsync<TState>(
        Func<TState, CancellationToken, ValueTask<SyncAttempt>> attempt, TState state, CancellationToken cancellationToken)
    {
        var call = new AttemptCall<TState>(attempt, state);
        try
        {
            var outcome = await _pipeline.ExecuteAsync(
                static (call, ct) => call.RunAsync(ct), call, cancellationToken);
            return (outcome, call.Attempts);
        }
        catch (TimeoutRejectedException)
        {
            return (SyncAttempt.Permanent("timeout"), call.Attempts);
        }
        catch (Exception exception) when (exception is HttpRequestException or IOException && !cancellationToken.IsCancellationRequested)
        {
            return (SyncAttempt.Permanent("connection"), call.Attempts);
        }
    }

    private sealed class AttemptCall<TState>(Func<TState, CancellationToken, ValueTask<SyncAttempt>> attempt, TState state)
    {
        public int Attempts { get; private set; }

        public ValueTask<SyncAttempt> RunAsync(CancellationToken cancellationToken)
        {
            Attempts++;
            return attempt(state, cancellationToken);
        }
    }
}
