using System.Globalization;
using System.IO.Pipelines;
using System.Net;
using System.Net.Http.Headers;
using Google.Protobuf;

namespace Kobo.Sync.SyncApi.Grpc.Wire.Client;

/// <summary>
/// Unary gRPC calls over an <see cref="HttpClient"/> speaking HTTP/2 with prior knowledge (h2c on
/// an http:// address). The client's <see cref="HttpClient.BaseAddress"/> is the gRPC listener.
/// A failed call throws <see cref="RpcException"/> with the server's status and message, or with a
/// status synthesised as PROTOCOL-HTTP2.md and http-grpc-status-mapping.md say.
/// </summary>
public sealed class GrpcUnaryClient(HttpClient http)
{
    public int MaxReceiveMessageSize { get; init; } = GrpcProtocol.DefaultMaxReceiveMessageSize;

    public async Task<TResponse> UnaryAsync<TRequest, TResponse>(
        string service,
        string method,
        TRequest request,
        MessageParser<TResponse> parser,
        IEnumerable<KeyValuePair<string, string>>? metadata = null,
        DateTimeOffset? deadline = null,
        CancellationToken cancellationToken = default)
        where TRequest : IMessage
        where TResponse : IMessage<TResponse>
    {
        using var message = new HttpRequestMessage(HttpMethod.Post, $"/{service}/{method}")
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new ByteArrayContent(MessageFraming.ToFrame(request)),
        };
        message.Content.Headers.ContentType = new MediaTypeHeaderValue(GrpcProtocol.ContentType);
        message.Headers.TE.Add(new TransferCodingWithQualityHeaderValue("trailers"));
        message.Headers.TryAddWithoutValidation(GrpcProtocol.AcceptEncodingHeader, GrpcProtocol.IdentityEncoding);
        foreach (var (key, value) in metadata ?? [])
        {
            message.Headers.TryAddWithoutValidation(key, value);
        }

        using var deadlineSource = new CancellationTokenSource();
        if (deadline is { } due)
        {
            var remaining = due - DateTimeOffset.UtcNow;
            if (remaining <= TimeSpan.Zero)
            {
                throw new RpcException(StatusCode.DeadlineExceeded, "Deadline exceeded before the call was sent.");
            }

            message.Headers.TryAddWithoutValidation(GrpcProtocol.TimeoutHeader, GrpcTimeout.Format(remaining));
            deadlineSource.CancelAfter(remaining);
        }

        using var call = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, deadlineSource.Token);
        try
        {
            using var response = await http.SendAsync(message, HttpCompletionOption.ResponseHeadersRead, call.Token);
            return await ReadResponseAsync(response, parser, call.Token);
        }
        catch (OperationCanceledException) when (deadlineSource.IsCancellationRequested && !cancellationToken.IsCancellationRequested)
        {
            throw new RpcException(StatusCode.DeadlineExceeded, "Deadline exceeded.");
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            throw new RpcException(StatusCode.Cancelled, "The call was cancelled.");
        }
        catch (HttpRequestException exception) when (exception.InnerException is HttpProtocolException reset)
        {
            throw FromStreamReset(reset);
        }
        catch (HttpProtocolException reset)
        {
            throw FromStreamReset(reset);
        }
        catch (HttpRequestException exception)
        {
            throw new RpcException(StatusCode.Unavailable, $"The server could not be reached: {exception.Message}");
        }
        catch (IOException exception)
        {
            throw new RpcException(StatusCode.Unavailable, $"The connection failed during the call: {exception.Message}");
        }
    }

    private async Task<TResponse> ReadResponseAsync<TResponse>(
        HttpResponseMessage response, MessageParser<TResponse> parser, CancellationToken cancellationToken)
        where TResponse : IMessage<TResponse>
    {
        if (response.StatusCode != HttpStatusCode.OK)
        {
            throw new RpcException(FromHttpStatus(response.StatusCode), $"HTTP status {(int)response.StatusCode} instead of a gRPC response.");
        }

        // Trailers-Only: the status is in the only HEADERS frame.
        if (StatusFrom(response.Headers) is { } trailersOnly)
        {
            throw trailersOnly.Status == StatusCode.OK
                ? new RpcException(StatusCode.Unimplemented, "The server sent no response message.")
                : trailersOnly;
        }

        var contentType = response.Content.Headers.ContentType?.MediaType;
        if (!GrpcProtocol.IsGrpcContentType(contentType))
        {
            throw new RpcException(StatusCode.Unknown, $"Content type '{contentType}' is not a gRPC response.");
        }

        var stream = await response.Content.ReadAsStreamAsync(cancellationToken);
        var reader = PipeReader.Create(stream);
        var encoding = response.Headers.TryGetValues(GrpcProtocol.EncodingHeader, out var values) ? values.FirstOrDefault() : null;
        byte[]? first = null;
        var count = 0;
        try
        {
            while (await MessageFraming.ReadMessageAsync(reader, MaxReceiveMessageSize, encoding, cancellationToken) is { } bytes)
            {
                first ??= bytes;
                count++;
            }
        }
        finally
        {
            await reader.CompleteAsync();
        }

        var status = StatusFrom(response.TrailingHeaders)
            ?? new RpcException(StatusCode.Unknown, "The response ended without a grpc-status.");
        if (status.Status != StatusCode.OK)
        {
            throw status;
        }

        if (first is null || count != 1)
        {
            throw new RpcException(StatusCode.Unimplemented, $"A unary call needs exactly one response message; the server sent {count}.");
        }

        try
        {
            return parser.ParseFrom(first);
        }
        catch (InvalidProtocolBufferException)
        {
            throw new RpcException(StatusCode.Internal, "The response message could not be parsed.");
        }
    }

    private static RpcException? StatusFrom(HttpHeaders headers)
    {
        if (!headers.TryGetValues(GrpcProtocol.StatusHeader, out var statusValues))
        {
            return null;
        }

        var text = statusValues.FirstOrDefault();
        if (!int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out var code))
        {
            return new RpcException(StatusCode.Unknown, $"Unparseable grpc-status '{text}'.");
        }

        var detail = headers.TryGetValues(GrpcProtocol.MessageHeader, out var messageValues)
            ? StatusMessageEncoding.Decode(string.Join(",", messageValues))
            : string.Empty;
        var trailers = headers
            .Where(h => !h.Key.Equals(GrpcProtocol.StatusHeader, StringComparison.OrdinalIgnoreCase)
                && !h.Key.Equals(GrpcProtocol.MessageHeader, StringComparison.OrdinalIgnoreCase))
            .SelectMany(h => h.Value.Select(v => new KeyValuePair<string, string>(h.Key, v)))
            .ToList();
        return new RpcException((StatusCode)code, detail, trailers);
    }

    /// <summary>PROTOCOL-HTTP2.md, "Errors": RST_STREAM error codes as gRPC statuses.</summary>
    private static RpcException FromStreamReset(HttpProtocolException reset)
    {
        var status = reset.ErrorCode switch
        {
            0x7 => StatusCode.Unavailable, // REFUSED_STREAM: nothing was processed
            0x8 => StatusCode.Cancelled, // CANCEL
            0xB => StatusCode.ResourceExhausted, // ENHANCE_YOUR_CALM
            0xC => StatusCode.PermissionDenied, // INADEQUATE_SECURITY
            _ => StatusCode.Internal,
        };
        return new RpcException(status, $"The server reset the stream (HTTP/2 error 0x{reset.ErrorCode:X}).");
    }

    /// <summary>grpc/grpc doc/http-grpc-status-mapping.md.</summary>
    private static StatusCode FromHttpStatus(HttpStatusCode status) => status switch
    {
        HttpStatusCode.BadRequest => StatusCode.Internal,
        HttpStatusCode.Unauthorized => StatusCode.Unauthenticated,
        HttpStatusCode.Forbidden => StatusCode.PermissionDenied,
        HttpStatusCode.NotFound => StatusCode.Unimplemented,
        HttpStatusCode.TooManyRequests or HttpStatusCode.BadGateway
            or HttpStatusCode.ServiceUnavailable or HttpStatusCode.GatewayTimeout => StatusCode.Unavailable,
        _ => StatusCode.Unknown,
    };
}
