namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>Resilience events as log lines.</summary>
internal sealed partial class LoggingResilienceEvents(ILogger<LoggingResilienceEvents> logger) : IResilienceEvents
{
    public void Retrying(string pipeline, int attempt, TimeSpan delay, Exception? failure) =>
        LogRetry(logger, pipeline, attempt, delay.TotalMilliseconds, failure?.GetType().Name, failure?.Message);

    public void CircuitOpened(TimeSpan breakDuration, Exception? failure) =>
        LogOpened(logger, breakDuration.TotalMilliseconds, failure?.GetType().Name, failure?.Message);

    public void CircuitHalfOpened() => LogHalfOpened(logger);

    public void CircuitClosed() => LogClosed(logger);

    [LoggerMessage(Level = LogLevel.Information, Message = "Storage call {Pipeline} retrying (attempt {Attempt}) in {DelayMs} ms after {Failure}: {Reason}")]
    private static partial void LogRetry(ILogger logger, string pipeline, int attempt, double delayMs, string? failure, string? reason);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Storage circuit opened for {BreakMs} ms: calls fail at once; last failure {Failure}: {Reason}")]
    private static partial void LogOpened(ILogger logger, double breakMs, string? failure, string? reason);

    [LoggerMessage(Level = LogLevel.Information, Message = "Storage circuit half-open: one call probes the database")]
    private static partial void LogHalfOpened(ILogger logger);

    [LoggerMessage(Level = LogLevel.Information, Message = "Storage circuit closed: the database answers again")]
    private static partial void LogClosed(ILogger logger);
}
