using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;

namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>Resilience events as log lines and as counts in the service's meter (when there is one).</summary>
public sealed partial class LoggingResilienceEvents(
    ILogger<LoggingResilienceEvents> logger, SyncMetrics? metrics = null) : IResilienceEvents
{
    /// <summary>The circuit is shared by every storage pipeline; its events carry this pipeline label.</summary>
    public const string BreakerPipeline = "storage";

    public void Retrying(string pipeline, int attempt, TimeSpan delay, Exception? failure)
    {
        LogRetry(logger, pipeline, attempt, delay.TotalMilliseconds, failure?.GetType().Name, failure?.Message);
        metrics?.RecordResilienceEvent(pipeline, ResilienceEvent.Retry);
    }

    public void TimedOut(string pipeline) => metrics?.RecordResilienceEvent(pipeline, ResilienceEvent.Timeout);

    public void CircuitOpened(TimeSpan breakDuration, Exception? failure)
    {
        LogOpened(logger, breakDuration.TotalMilliseconds, failure?.GetType().Name, failure?.Message);
        metrics?.RecordResilienceEvent(BreakerPipeline, ResilienceEvent.CircuitOpened);
    }

    public void CircuitHalfOpened()
    {
        LogHalfOpened(logger);
        metrics?.RecordResilienceEvent(BreakerPipeline, ResilienceEvent.CircuitHalfOpened);
    }

    public void CircuitClosed()
    {
        LogClosed(logger);
        metrics?.RecordResilienceEvent(BreakerPipeline, ResilienceEvent.CircuitClosed);
    }

    [LoggerMessage(
        Level = LogLevel.Information,
        Message = "Storage call {Pipeline} retrying (attempt {Attempt}) in {DelayMs} ms after {Failure}: {Reason}")]
    private static partial void LogRetry(ILogger logger, string pipeline, int attempt, double delayMs, string? failure, string? reason);

    [LoggerMessage(
        Level = LogLevel.Warning,
        Message = "Storage circuit opened for {BreakMs} ms: calls fail at once; last failure {Failure}: {Reason}")]
    private static partial void LogOpened(ILogger logger, double breakMs, string? failure, string? reason);

    [LoggerMessage(Level = LogLevel.Information, Message = "Storage circuit half-open: one call probes the database")]
    private static partial void LogHalfOpened(ILogger logger);

    [LoggerMessage(Level = LogLevel.Information, Message = "Storage circuit closed: the database answers again")]
    private static partial void LogClosed(ILogger logger);
}
