using System.Globalization;
using System.Text;
using Microsoft.AspNetCore.Diagnostics;
using GrpcStatusCode = Grpc.Core.StatusCode;

namespace Kobo.Sync.SyncApi.Infrastructure.Wire;

/// <summary>
/// gRPC answers written by middleware that runs before a call reaches Grpc.AspNetCore (a refused
/// token, a refused admission): a Trailers-Only response (grpc/grpc doc/PROTOCOL-HTTP2.md), HTTP 200
/// with <c>grpc-status</c> and <c>grpc-message</c> in the only HEADERS frame. The request message is
/// never read.
/// </summary>
internal static class GrpcResponses
{
    private const string ContentType = "application/grpc";

    /// <summary>Larger request messages are refused with RESOURCE_EXHAUSTED, as in the reference implementations.</summary>
    public const int MaxReceiveMessageSize = 4 * 1024 * 1024;

    /// <summary>
    /// What Grpc.AspNetCore answers, with RESOURCE_EXHAUSTED, a message over its limit; the service's own checks say the same.
    /// </summary>
    public const string MessageTooLarge = "Received message exceeds the maximum configured message size.";

    /// <summary>True for <c>application/grpc</c> and its <c>+suffix</c> and parameter forms, as the spec defines a gRPC request.</summary>
    public static bool IsGrpc(HttpRequest request) =>
        request.ContentType is { } contentType
        && contentType.StartsWith(ContentType, StringComparison.OrdinalIgnoreCase)
        && (contentType.Length == ContentType.Length || contentType[ContentType.Length] is '+' or ';');

    public static void WriteTrailersOnly(
        HttpContext http, GrpcStatusCode status, string message, KeyValuePair<string, string>? trailer = null)
    {
        var response = http.Response;
        response.StatusCode = StatusCodes.Status200OK;
        response.ContentType = ContentType;
        response.Headers["grpc-status"] = ((int)status).ToString(CultureInfo.InvariantCulture);
        response.Headers["grpc-message"] = EncodeMessage(message);
        if (trailer is { } pushback)
        {
            response.Headers[pushback.Key] = pushback.Value;
        }
    }

    /// <summary>
    /// The gRPC listener's catch-all: UNIMPLEMENTED for a gRPC request, as a gRPC server answers a
    /// method it does not have; 404 for anything else.
    /// </summary>
    public static Task UnknownMethodAsync(HttpContext http)
    {
        if (IsGrpc(http.Request))
        {
            WriteTrailersOnly(http, GrpcStatusCode.Unimplemented, $"Method '{http.Request.Path}' is not implemented by this server.");
        }
        else
        {
            // A bare 404: the REST surface's problem documents do not belong on this listener.
            http.Response.StatusCode = StatusCodes.Status404NotFound;
            if (http.Features.Get<IStatusCodePagesFeature>() is { } statusCodePages)
            {
                statusCodePages.Enabled = false;
            }
        }

        return Task.CompletedTask;
    }

    /// <summary>The <c>grpc-message</c> value: UTF-8, then every byte outside 0x20-0x7E and '%' itself written as %XX.</summary>
    internal static string EncodeMessage(string message)
    {
        var bytes = Encoding.UTF8.GetBytes(message);
        var builder = new StringBuilder(bytes.Length);
        foreach (var b in bytes)
        {
            if (b is >= 0x20 and <= 0x7E and not (byte)'%')
            {
                builder.Append((char)b);
            }
            else
            {
                builder.Append('%').Append(b.ToString("X2", CultureInfo.InvariantCulture));
            }
        }

        return builder.ToString();
    }
}
