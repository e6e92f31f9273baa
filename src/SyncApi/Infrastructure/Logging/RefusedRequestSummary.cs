using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// Every <c>RequestLog:RefusedSummarySeconds</c>, one Warning line with the refused requests that wrote
/// no line of their own (<see cref="RefusedRequestLines"/>), by status; nothing when there were none.
/// </summary>
internal sealed partial class RefusedRequestSummary(
    RefusedRequestLines lines, IOptions<RequestLogOptions> options, TimeProvider clock, ILogger<RefusedRequestSummary> logger)
    : BackgroundService
{
    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        var period = TimeSpan.FromSeconds(options.Value.RefusedSummarySeconds);
        using var timer = new PeriodicTimer(period, clock);
        try
        {
            while (await timer.WaitForNextTickAsync(stoppingToken).ConfigureAwait(false))
            {
                WriteSummary(period);
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }

        WriteSummary(period);
    }

    internal void WriteSummary(TimeSpan period)
    {
        var (unauthorized, tooMany, unavailable, other) = lines.TakeUnwritten();
        var total = unauthorized + tooMany + unavailable + other;
        if (total > 0)
        {
            LogUnwritten(
                logger, total, (int)period.TotalSeconds, options.Value.RefusedLinesPerSecond, unauthorized, tooMany, unavailable, other);
        }
    }

    [LoggerMessage(
        Level = LogLevel.Warning,
        Message = "{Refused} refused requests in the last {Seconds} s wrote no request line (over {LinesPerSecond} a second): "
            + "401 {Unauthorized}, 429 {TooMany}, 503 {Unavailable}, other 4xx {Other}")]
    private static partial void LogUnwritten(
        ILogger logger, long refused, int seconds, int linesPerSecond, long unauthorized, long tooMany, long unavailable, long other);
}
