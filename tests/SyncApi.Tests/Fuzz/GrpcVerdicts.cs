using System.Net;
using System.Net.Http.Headers;
using Kobo.Sync.Contracts.Grpc.V1;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Sends a <see cref="GrpcCall"/> over h2c and judges the answer: never an HTTP 5xx; a gRPC request
/// always gets a <c>grpc-status</c>, never INTERNAL or UNKNOWN, and a message with every status but OK;
/// a token that must be refused is never served; what an accepted call says it stored goes into the
/// <see cref="FuzzLedger"/>. A request that is not gRPC at all (another content type) is judged by its
/// HTTP status alone. Returns null when all is right.
/// </summary>
internal static class GrpcVerdicts
{
    public static async Task<string?> CheckAsync(HttpClient h2c, GrpcCall call, FuzzLedger ledger, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, call.Path)
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new ByteArrayContent(call.Body),
        };
        request.Content.Headers.ContentType = MediaTypeHeaderValue.Parse(call.ContentType);
        request.Headers.TE.ParseAdd("trailers");
        if (call.Auth.Header is { } authorization)
        {
            request.Headers.TryAddWithoutValidation("authorization", authorization);
        }

        foreach (var (name, value) in call.Metadata)
        {
            request.Headers.TryAddWithoutValidation(name, value);
        }

        HttpResponseMessage response;
        try
        {
            response = await h2c.SendAsync(request, cancellationToken);
        }
        catch (HttpRequestException refused) when (refused.Message.Contains("exceeded the server limit", StringComparison.Ordinal))
        {
            // The client read the server's SETTINGS_MAX_HEADER_LIST_SIZE and kept these headers to itself.
            return null;
        }

        using var answer = response;
        var body = await response.Content.ReadAsByteArrayAsync(cancellationToken);
        var http = (int)response.StatusCode;
        var what = $"gRPC {call.Operation}";
        var status = Header(response, "grpc-status");
        var message = Header(response, "grpc-message");
        var shown = $"HTTP {http}, grpc-status {status ?? "(none)"}, grpc-message {message ?? "(none)"}";
        if (http >= 500)
        {
            return $"{what}: HTTP {http} | {shown}";
        }

        // The health service answers probes without a token, so a bad token on it changes nothing.
        if (call.Auth.MustBeRefused && status == "0" && !call.Path.StartsWith("/grpc.health.v1.Health/", StringComparison.Ordinal))
        {
            return $"{what}: a token that must be refused was served | {shown}";
        }

        if (!call.IsGrpc)
        {
            return http is >= 400 and < 500 ? null : $"{what}: a request that is not gRPC got HTTP {http} | {shown}";
        }

        if (status is null)
        {
            return http is 404 or 415 ? null : $"{what}: no grpc-status | {shown}";
        }

        if (status is "2" or "13")
        {
            return $"{what}: {(status == "2" ? "UNKNOWN" : "INTERNAL")} | {shown}";
        }

        if (status == "4")
        {
            // gRPC's DEADLINE_EXCEEDED may come after the change was made (doc/statuscodes.md): count it as made.
            Intended(call, ledger);
        }

        if (status != "0")
        {
            return string.IsNullOrEmpty(message) ? $"{what}: status {status} without a message | {shown}" : null;
        }

        return Record(call, body, ledger);
    }

    private static string? Record(GrpcCall call, byte[] body, FuzzLedger ledger)
    {
        switch (call.Operation)
        {
            case "PushChanges":
                foreach (var result in PushChangesResponse.Parser.ParseFrom(body.AsSpan(5)).Results)
                {
                    if (result.Status is "applied" or "conflict")
                    {
                        ledger.Wrote(result.Id);
                    }
                }

                break;
            case "PutReadingState":
                ledger.Wrote(FuzzLedger.ReadingState(PutReadingStateResponse.Parser.ParseFrom(body.AsSpan(5)).ReadingState.BookNo));
                break;
            case "PullChanges":
                ledger.Touched(call.Auth.Devices);
                break;
            case "RevokeDevice":
                ledger.Touched([call.RevokedDevice!, .. SentDeviceId(call)]);
                break;
        }

        return null;
    }

    /// <summary>
    /// The device id the service read from the first message actually sent: a mutated message that
    /// still parses may name another device than the one intended.
    /// </summary>
    private static IEnumerable<string> SentDeviceId(GrpcCall call)
    {
        if (call.Body.Length < 5)
        {
            yield break;
        }

        var length = (int)Math.Min(System.Buffers.Binary.BinaryPrimitives.ReadUInt32BigEndian(call.Body.AsSpan(1, 4)), (uint)(call.Body.Length - 5));
        RevokeDeviceRequest? sent = null;
        try
        {
            sent = RevokeDeviceRequest.Parser.ParseFrom(call.Body.AsSpan(5, length));
        }
        catch (Google.Protobuf.InvalidProtocolBufferException)
        {
            // Not what the service read (it answered OK): the intended id stands.
        }

        if (sent is not null)
        {
            yield return sent.DeviceId;
        }
    }

    private static void Intended(GrpcCall call, FuzzLedger ledger)
    {
        switch (call.Operation)
        {
            case "PushChanges" when call.Mutation.Length == 0:
                var request = PushChangesRequest.Parser.ParseFrom(call.Body.AsSpan(5));
                foreach (var change in request.Changes)
                {
                    ledger.Wrote($"highlights/users{request.UserNo}-ebooks/{change.BookNo}/{change.Key}");
                }

                break;
            case "PutReadingState":
                // The book of the message as sent (a mutated one may name another); unreadable: nothing was written.
                try
                {
                    ledger.Wrote(FuzzLedger.ReadingState(PutReadingStateRequest.Parser.ParseFrom(call.Body.AsSpan(5)).BookNo));
                }
                catch (Google.Protobuf.InvalidProtocolBufferException)
                {
                }

                break;
            case "PullChanges":
                ledger.Touched(call.Auth.Devices);
                break;
            case "RevokeDevice":
                ledger.Touched([call.RevokedDevice!]);
                break;
        }
    }

    private static string? Header(HttpResponseMessage response, string name) =>
        response.Headers.TryGetValues(name, out var values) ? values.First()
        : response.TrailingHeaders.TryGetValues(name, out var trailing) ? trailing.First()
        : null;
}
