using System.Buffers;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// Outside the admission limiter: an authenticated request's answer is produced into memory of the
/// service's own (<see cref="BufferedAnswer"/>) while the request holds its admission slot, and sent to
/// the device only once the slot is given back, so a device that reads its answer slowly, or never,
/// holds no slot another device needs. What waits is bounded in bytes (<see cref="AnswerLoads"/>): past the
/// instance's <c>Admission:AnswerBytes</c> an answer is replaced by 503 / UNAVAILABLE, past its user's
/// <c>Admission:PerUserAnswerBytes</c> by 429 / RESOURCE_EXHAUSTED, before any of it is sent. The wait is bounded: an answer not taken
/// within <c>Admission:AnswerWriteGraceMs</c> plus its size at <c>Admission:AnswerMinBytesPerSecond</c>, counted
/// from the first time it waits on the device (one that fits the connection's buffers never does), loses its
/// connection (HTTP/1.1) or its stream (HTTP/2 RST_STREAM), whatever Kestrel's own minimum rate allows
/// (240 B/s, which a full socket buffer satisfies for hours), and its memory is given back. The size of
/// an answer is bounded by the endpoints' paging; how many one device holds, by
/// <see cref="DeviceShareMiddleware"/>. A gRPC stream of answers (<c>WatchChanges</c>) is written message
/// by message as before.
/// </summary>
internal sealed partial class AnswerBufferingMiddleware(
    RequestDelegate next, IOptions<AdmissionOptions> options, AnswerLoads loads,
    ILogger<AnswerBufferingMiddleware> logger, SyncMetrics? metrics = null)
{
    /// <summary>Bytes handed to the connection between two flushes, so a large answer goes out in a few writes.</summary>
    private const int FlushEveryBytes = 64 * 1024;

    private readonly TimeSpan _grace = TimeSpan.FromMilliseconds(options.Value.AnswerWriteGraceMs);
    private readonly int _minBytesPerSecond = options.Value.AnswerMinBytesPerSecond;

    public async Task InvokeAsync(HttpContext context)
    {
        if (AdmissionRequests.DeviceOf(context) is null || AdmissionRequests.StreamsAnswer(context))
        {
            await next(context);
            return;
        }

        var features = context.Features;
        var response = features.GetRequiredFeature<IHttpResponseFeature>();
        var connectionBody = features.GetRequiredFeature<IHttpResponseBodyFeature>();
        var answer = BufferedAnswer.Rent(connectionBody, response);
        features.Set<IHttpResponseBodyFeature>(answer);
        features.Set<IHttpResponseFeature>(answer);
        try
        {
            await next(context);
        }
        catch
        {
            // Nothing has left: the error handlers outside answer on a clean response.
            answer.Release();
            throw;
        }
        finally
        {
            features.Set(connectionBody);
            features.Set(response);
        }

        await SendAsync(context, answer);
    }

    private async Task SendAsync(HttpContext context, BufferedAnswer answer)
    {
        var body = answer.Take();
        var length = body.Length;
        try
        {
            if (length == 0)
            {
                if (answer.Started && !answer.Completed && !context.Response.HasStarted)
                {
                    await answer.ConnectionBody.StartAsync(context.RequestAborted);
                }

                return;
            }

            var user = AdmissionRequests.UserOf(context)!;
            var refusal = loads.TryHold(user, length);
            if (refusal != AnswerLoads.Refusal.None)
            {
                // Nothing of the answer has left: its status, headers and trailers are dropped for the refusal's.
                context.Response.Clear();
                context.Features.Get<IHttpResponseTrailersFeature>()?.Trailers.Clear();
            }

            switch (refusal)
            {
                case AnswerLoads.Refusal.User:
                    // Nothing of the answer has left: the device is told to come back for it.
                    await AdmissionRejection.WriteDeviceShareAsync(context, "user holds its share of answers",
                        "This account's devices have too many answers waiting to be taken; retry later.");
                    return;
                case AnswerLoads.Refusal.Instance:
                    await AdmissionRejection.WriteOverloadedAsync(context, "answers over the instance's budget");
                    return;
            }

            metrics?.AddBufferedBytes(BufferedDirection.Answer, length);
            CancellationTokenSource? deadline = null;
            try
            {
                var writer = answer.ConnectionBody.Writer;
                var unflushed = 0;
                foreach (var segment in body)
                {
                    writer.Write(segment.Span);
                    unflushed += segment.Length;
                    if (unflushed >= FlushEveryBytes)
                    {
                        unflushed = 0;
                        await FlushAsync(writer, context, length, ref deadline);
                    }
                }

                await FlushAsync(writer, context, length, ref deadline);
            }
            catch (Exception exception) when (exception is OperationCanceledException or IOException)
            {
                // The device hung up, or did not take its answer in time (the connection or stream is aborted).
                if (deadline?.IsCancellationRequested == true)
                {
                    LogNotTaken(logger, context.Request.Path, length);
                }
            }
            finally
            {
                metrics?.AddBufferedBytes(BufferedDirection.Answer, -length);
                loads.Release(user, length);
            }
        }
        finally
        {
            answer.Release();
        }
    }

    /// <summary>
    /// A flush that the connection takes at once (the common case: the answer fits its buffers) costs no
    /// deadline; the first that must wait on the device starts the answer's deadline, which aborts the
    /// request and so ends this and any later wait.
    /// </summary>
    private Task FlushAsync(System.IO.Pipelines.PipeWriter writer, HttpContext context, long length, ref CancellationTokenSource? deadline)
    {
        var flush = writer.FlushAsync();
        if (flush.IsCompleted)
        {
            // Observes the result (and any error) of a flush that completed at once.
            _ = flush.GetAwaiter().GetResult();
            return Task.CompletedTask;
        }

        deadline ??= Deadline(context, length);
        return flush.AsTask();
    }

    /// <summary>
    /// Cancelled, and the request aborted, when the answer has not been taken in time; it runs until the
    /// response is complete, since the last bytes and the trailers may still wait on the device.
    /// </summary>
    private CancellationTokenSource Deadline(HttpContext context, long length)
    {
        var deadline = new CancellationTokenSource(_grace + TimeSpan.FromSeconds((double)length / _minBytesPerSecond));
        deadline.Token.UnsafeRegister(static state => ((HttpContext)state!).Abort(), context);
        context.Response.RegisterForDispose(deadline);
        return deadline;
    }

    [LoggerMessage(
        Level = LogLevel.Information, Message = "Answer to {Path} ({Bytes} bytes) not taken by the device in time: its stream was aborted")]
    private static partial void LogNotTaken(ILogger logger, PathString path, long bytes);
}
