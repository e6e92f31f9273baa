using System.Diagnostics;
using Google.Protobuf;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>
/// Runs one unary call: checks the request is gRPC, applies the deadline, reads exactly one
/// message, calls the handler and writes one message and the status trailers. Every failure
/// before the response message is written leaves as a Trailers-Only response (HTTP 200 with
/// <c>grpc-status</c> in the only HEADERS frame).
/// Statuses the binding itself chooses, after grpc/grpc doc/statuscodes.md:
/// no request message or more than one: UNIMPLEMENTED ("request cardinality violation");
/// a message that does not parse, is truncated, or is flagged compressed without an encoding:
/// INTERNAL; a compressed message: UNIMPLEMENTED; a message over the limit: RESOURCE_EXHAUSTED;
/// a malformed <c>grpc-timeout</c>: INTERNAL (as grpc-go); deadline passed: DEADLINE_EXCEEDED;
/// client gone: CANCELLED; an exception neither the handler nor <see cref="GrpcWireOptions.MapException"/>
/// turned into a status: INTERNAL with a generic message, logged (the spec's UNKNOWN tells a client
/// less; INTERNAL says "the server's fault, do not retry blindly").
/// </summary>
internal static partial class UnaryCallDispatcher
{
    internal const string GenericInternalMessage = "The server failed to process the call.";
    private const double MaxTimerMilliseconds = uint.MaxValue - 1;

    public static async Task HandleAsync<TRequest, TResponse>(
        HttpContext http,
        string method,
        MessageParser<TRequest> parser,
        Func<TRequest, GrpcCallContext, Task<TResponse>> handler)
        where TRequest : IMessage<TRequest>
        where TResponse : IMessage<TResponse>
    {
        if (!await AcceptsAsync(http))
        {
            return;
        }

        var options = http.RequestServices.GetRequiredService<IOptions<GrpcWireOptions>>().Value;
        var logger = http.RequestServices.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(UnaryCallDispatcher));

        if (!TryReadDeadline(http, out var timeout, out var failure))
        {
            WriteTrailersOnly(http, failure);
            return;
        }

        // Past about 24 days a timer cannot count (grpc-timeout reaches 11,000 years); such a deadline is as good as none.
        if (timeout is { } t && t.TotalMilliseconds >= MaxTimerMilliseconds)
        {
            timeout = null;
        }

        var started = Stopwatch.GetTimestamp();
        using var deadline = new CancellationTokenSource();
        if (timeout is { } due)
        {
            deadline.CancelAfter(due);
        }

        // The timer counts whole milliseconds on the thread pool, so it can fire late (or, below a
        // millisecond, only "soon"): the clock decides whether the deadline has passed.
        bool Expired() => deadline.IsCancellationRequested || (timeout is { } limit && Stopwatch.GetElapsedTime(started) >= limit);

        using var call = CancellationTokenSource.CreateLinkedTokenSource(http.RequestAborted, deadline.Token);
        var context = new GrpcCallContext(http, method, timeout is { } d ? DateTimeOffset.UtcNow + d : null, call.Token);
        try
        {
            var request = await ReadSingleRequestAsync(http, parser, options.MaxReceiveMessageSize, call.Token);
            if (Expired())
            {
                throw DeadlineExceeded();
            }

            var response = await handler(request, context);
            // A handler that ignored the token, or finished before the timer fired, must not answer after the deadline.
            if (Expired())
            {
                throw DeadlineExceeded();
            }

            http.Response.ContentType = GrpcProtocol.ContentType;
            http.Response.Headers[GrpcProtocol.AcceptEncodingHeader] = GrpcProtocol.IdentityEncoding;
            MessageFraming.WriteMessage(http.Response.BodyWriter, response);
            await http.Response.BodyWriter.FlushAsync(call.Token);
            http.Response.AppendTrailer(GrpcProtocol.StatusHeader, "0");
        }
        catch (Exception exception)
        {
            // Whatever failed once the deadline had passed (a storage timeout racing the deadline's timer,
            // say), the client has stopped waiting: it is DEADLINE_EXCEEDED.
            var status = exception is not RpcException && Expired()
                ? DeadlineExceeded()
                : ToStatus(exception, deadline.Token, http.RequestAborted, options, logger, method);
            if (http.Response.HasStarted)
            {
                AppendStatusTrailers(http, status);
            }
            else
            {
                WriteTrailersOnly(http, status);
            }
        }
    }

    /// <summary>The catch-all of the gRPC listener: any other path is a method this server does not have.</summary>
    public static async Task HandleUnknownMethodAsync(HttpContext http)
    {
        if (await AcceptsAsync(http))
        {
            WriteTrailersOnly(http, new RpcException(StatusCode.Unimplemented, $"Method '{http.Request.Path}' is not implemented by this server."));
        }
    }

    /// <summary>HTTP-level checks; a request that is not gRPC at all gets a plain HTTP error.</summary>
    private static async Task<bool> AcceptsAsync(HttpContext http)
    {
        var request = http.Request;
        if (!HttpProtocol.IsHttp2(request.Protocol) && !HttpProtocol.IsHttp3(request.Protocol))
        {
            http.Response.StatusCode = StatusCodes.Status426UpgradeRequired;
            http.Response.Headers.Upgrade = "h2c";
            await http.Response.WriteAsync("gRPC needs HTTP/2.", http.RequestAborted);
            return false;
        }

        if (!HttpMethods.IsPost(request.Method))
        {
            http.Response.StatusCode = StatusCodes.Status405MethodNotAllowed;
            http.Response.Headers.Allow = HttpMethods.Post;
            return false;
        }

        if (!GrpcProtocol.IsGrpcContentType(request.ContentType))
        {
            // PROTOCOL-HTTP2.md: 415, so no HTTP client mistakes a gRPC error (HTTP 200) for success.
            http.Response.StatusCode = StatusCodes.Status415UnsupportedMediaType;
            return false;
        }

        if (!GrpcProtocol.IsProtobufContentType(request.ContentType!))
        {
            WriteTrailersOnly(http, new RpcException(StatusCode.Unimplemented, $"Content type '{request.ContentType}' is not supported; use application/grpc (protobuf)."));
            return false;
        }

        return true;
    }

    private static bool TryReadDeadline(HttpContext http, out TimeSpan? timeout, out RpcException failure)
    {
        timeout = null;
        failure = null!;
        var header = http.Request.Headers[GrpcProtocol.TimeoutHeader];
        if (header.Count == 0)
        {
            return true;
        }

        if (header.Count == 1 && GrpcTimeout.TryParse(header[0], out var parsed))
        {
            timeout = parsed;
            return true;
        }

        // As grpc-go does: a malformed grpc-timeout is a protocol error, not a call to run without a deadline.
        failure = new RpcException(StatusCode.Internal, "Malformed grpc-timeout header.");
        return false;
    }

    private static async Task<TRequest> ReadSingleRequestAsync<TRequest>(
        HttpContext http, MessageParser<TRequest> parser, int maxMessageSize, CancellationToken cancellationToken)
        where TRequest : IMessage<TRequest>
    {
        var reader = http.Request.BodyReader;
        var encoding = http.Request.Headers[GrpcProtocol.EncodingHeader].ToString();
        var bytes = await MessageFraming.ReadMessageAsync(reader, maxMessageSize, encoding, cancellationToken)
            ?? throw new RpcException(StatusCode.Unimplemented, "A unary call needs exactly one request message; none was sent.");
        if (await MessageFraming.ReadMessageAsync(reader, maxMessageSize, encoding, cancellationToken) is not null)
        {
            throw new RpcException(StatusCode.Unimplemented, "A unary call needs exactly one request message; more were sent.");
        }

        try
        {
            return parser.ParseFrom(bytes);
        }
        catch (InvalidProtocolBufferException)
        {
            // statuscodes.md: a request that does not parse is INTERNAL, generated by the library.
            throw new RpcException(StatusCode.Internal, "The request message could not be parsed.");
        }
    }

    private static RpcException DeadlineExceeded() => new(StatusCode.DeadlineExceeded, "Deadline exceeded.");

    private static RpcException ToStatus(
        Exception exception,
        CancellationToken deadline,
        CancellationToken aborted,
        GrpcWireOptions options,
        ILogger logger,
        string method)
    {
        if (exception is RpcException rpc)
        {
            return rpc;
        }

        if (exception is OperationCanceledException && deadline.IsCancellationRequested)
        {
            return DeadlineExceeded();
        }

        if (exception is OperationCanceledException or IOException && aborted.IsCancellationRequested)
        {
            return new RpcException(StatusCode.Cancelled, "The call was cancelled by the client.");
        }

        if (options.MapException(exception) is { } mapped)
        {
            return mapped;
        }

        LogUnhandled(logger, exception, method, Activity.Current?.TraceId.ToString());
        return new RpcException(StatusCode.Internal, GenericInternalMessage);
    }

    internal static void WriteTrailersOnly(HttpContext http, RpcException status)
    {
        var response = http.Response;
        response.StatusCode = StatusCodes.Status200OK;
        response.ContentType = GrpcProtocol.ContentType;
        response.Headers[GrpcProtocol.AcceptEncodingHeader] = GrpcProtocol.IdentityEncoding;
        response.Headers[GrpcProtocol.StatusHeader] = ((int)status.Status).ToString(System.Globalization.CultureInfo.InvariantCulture);
        if (status.Detail.Length > 0)
        {
            response.Headers[GrpcProtocol.MessageHeader] = StatusMessageEncoding.Encode(status.Detail);
        }

        foreach (var (key, value) in status.Trailers)
        {
            response.Headers.Append(key, value);
        }
    }

    private static void AppendStatusTrailers(HttpContext http, RpcException status)
    {
        if (http.Features.Get<IHttpResponseTrailersFeature>() is null)
        {
            return;
        }

        http.Response.AppendTrailer(GrpcProtocol.StatusHeader, ((int)status.Status).ToString(System.Globalization.CultureInfo.InvariantCulture));
        if (status.Detail.Length > 0)
        {
            http.Response.AppendTrailer(GrpcProtocol.MessageHeader, StatusMessageEncoding.Encode(status.Detail));
        }

        foreach (var (key, value) in status.Trailers)
        {
            http.Response.AppendTrailer(key, value);
        }
    }

    [LoggerMessage(Level = LogLevel.Error, Message = "gRPC call {GrpcMethod} failed with an unhandled exception (trace {TraceId})")]
    private static partial void LogUnhandled(ILogger logger, Exception exception, string grpcMethod, string? traceId);
}
