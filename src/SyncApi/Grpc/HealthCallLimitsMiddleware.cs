using System.Globalization;
using System.IO.Pipelines;
using Grpc.Core;
using Kobo.Sync.SyncApi.Infrastructure.Admission;
using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Grpc;

/// <summary>
/// The anonymous <c>grpc.health.v1.Health</c> service, bounded as an anonymous caller must be: a request
/// is one <c>HealthCheckRequest</c> (a service name, a few bytes), so a message over
/// <see cref="MaxRequestBytes"/> is RESOURCE_EXHAUSTED before the service reads it (Grpc.AspNetCore would
/// wait for up to 4 MiB); a <c>Watch</c> stream lasts at most <c>Admission:HealthWatchMaxSeconds</c> (it
/// ends with DEADLINE_EXCEEDED, a shorter <c>grpc-timeout</c> of the caller's own wins), and at most
/// <c>Admission:HealthWatchLimit</c> are open at once (then RESOURCE_EXHAUSTED: probes use <c>Check</c>,
/// which no limit here touches beyond the message size).
/// </summary>
internal sealed class HealthCallLimitsMiddleware(RequestDelegate next, IOptions<AdmissionOptions> options)
{
    /// <summary>A HealthCheckRequest's service name, with room to spare, and the message's length prefix.</summary>
    internal const int MaxRequestBytes = 1024 + 5;

    private const string ServicePath = "/grpc.health.v1.Health";
    private const string WatchPath = ServicePath + "/Watch";

    private readonly int _watchLimit = options.Value.HealthWatchLimit;
    private readonly int _watchSeconds = options.Value.HealthWatchMaxSeconds;
    private int _watches;

    // Every other call passes straight through, with no asynchronous step of its own.
    public Task InvokeAsync(HttpContext context) =>
        context.Request.Path.StartsWithSegments(ServicePath, StringComparison.Ordinal) && GrpcResponses.IsGrpc(context.Request)
            ? LimitAsync(context)
            : next(context);

    private async Task LimitAsync(HttpContext context)
    {
        if (!await ArrivedWithinLimitAsync(context.Request.BodyReader, context.RequestAborted))
        {
            GrpcResponses.WriteTrailersOnly(context, StatusCode.ResourceExhausted, GrpcResponses.MessageTooLarge);
            return;
        }

        if (!context.Request.Path.Equals(WatchPath, StringComparison.Ordinal))
        {
            await next(context);
            return;
        }

        if (Interlocked.Increment(ref _watches) > _watchLimit)
        {
            Interlocked.Decrement(ref _watches);
            GrpcResponses.WriteTrailersOnly(
                context, StatusCode.ResourceExhausted, "Too many health watches are open; probe with Check, or watch again later.");
            return;
        }

        try
        {
            if (!CallerTimeoutWithin(context.Request.Headers["grpc-timeout"].ToString(), _watchSeconds))
            {
                context.Request.Headers["grpc-timeout"] = _watchSeconds.ToString(CultureInfo.InvariantCulture) + "S";
            }

            await next(context);
        }
        finally
        {
            Interlocked.Decrement(ref _watches);
        }
    }

    /// <summary>
    /// Waits for the whole request, or for more than <see cref="MaxRequestBytes"/> of it; the bytes stay in
    /// the connection's buffer (examined, not consumed) for the service to read.
    /// </summary>
    private static async Task<bool> ArrivedWithinLimitAsync(PipeReader body, CancellationToken cancellationToken)
    {
        try
        {
            while (true)
            {
                var read = await body.ReadAsync(cancellationToken);
                if (read.Buffer.Length > MaxRequestBytes)
                {
                    body.AdvanceTo(read.Buffer.End);
                    return false;
                }

                if (read.IsCompleted || read.IsCanceled)
                {
                    body.AdvanceTo(read.Buffer.Start);
                    return true;
                }

                body.AdvanceTo(read.Buffer.Start, read.Buffer.End);
            }
        }
        catch (Exception exception) when (exception is IOException or OperationCanceledException)
        {
            // The caller hung up or was too slow for Kestrel: the service's own read sees the same.
            return true;
        }
    }

    /// <summary>
    /// The caller's <c>grpc-timeout</c> (1 to 8 digits and a unit, the gRPC spec's form) is at most <paramref name="seconds"/>.
    /// </summary>
    internal static bool CallerTimeoutWithin(string timeout, int seconds)
    {
        if (timeout.Length is < 2 or > 9
            || !long.TryParse(timeout.AsSpan(0, timeout.Length - 1), NumberStyles.None, CultureInfo.InvariantCulture, out var value)
            || value == 0)
        {
            return false;
        }

        double? asked = timeout[^1] switch
        {
            'H' => value * 3600.0,
            'M' => value * 60.0,
            'S' => value,
            'm' => value / 1e3,
            'u' => value / 1e6,
            'n' => value / 1e9,
            _ => null,
        };
        return asked <= seconds;
    }
}
