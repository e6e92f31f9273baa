using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// The allowance of request lines for refused requests (<see cref="RequestLogOptions"/>): the first
/// <c>RequestLog:RefusedLinesPerSecond</c> refusals of each second are written, the others counted by
/// status and summed up by <see cref="RefusedRequestSummary"/>. Lock-free: a flood's requests only
/// increment counters. At a second's turn two requests may both start the new second, so a second can
/// write a few lines more than its allowance, never more than one per concurrent request.
/// </summary>
internal sealed class RefusedRequestLines(IOptions<RequestLogOptions> options, TimeProvider clock)
{
    private readonly int _perSecond = options.Value.RefusedLinesPerSecond;
    private long _second = -1;
    private int _written;
    private long _unauthorized;
    private long _tooMany;
    private long _unavailable;
    private long _other;

    /// <summary>Whether a request answered <paramref name="statusCode"/> is a refusal: any 4xx, or 503.</summary>
    public static bool IsRefusal(int statusCode) => statusCode is >= 400 and < 500 or 503;

    /// <summary>Whether this refusal may write its line; when not, it is counted.</summary>
    public bool TryTake(int statusCode)
    {
        var second = clock.GetTimestamp() / clock.TimestampFrequency;
        if (Volatile.Read(ref _second) != second && Interlocked.Exchange(ref _second, second) != second)
        {
            Volatile.Write(ref _written, 0);
        }

        if (Interlocked.Increment(ref _written) <= _perSecond)
        {
            return true;
        }

        switch (statusCode)
        {
            case 401: Interlocked.Increment(ref _unauthorized); break;
            case 429: Interlocked.Increment(ref _tooMany); break;
            case 503: Interlocked.Increment(ref _unavailable); break;
            default: Interlocked.Increment(ref _other); break;
        }

        return false;
    }

    /// <summary>The refusals not written since the last call, by status, and resets them.</summary>
    public (long Unauthorized, long TooMany, long Unavailable, long Other) TakeUnwritten() =>
        (Interlocked.Exchange(ref _unauthorized, 0), Interlocked.Exchange(ref _tooMany, 0),
         Interlocked.Exchange(ref _unavailable, 0), Interlocked.Exchange(ref _other, 0));
}
