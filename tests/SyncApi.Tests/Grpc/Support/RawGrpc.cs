using System.Buffers.Binary;
using System.Net;
using System.Net.Http.Headers;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Support;

/// <summary>Hand-built gRPC requests, for what a well-behaved client never sends.</summary>
public static class RawGrpc
{
    public static byte[] Frame(byte[] message, byte compressedFlag = 0)
    {
        var frame = new byte[5 + message.Length];
        frame[0] = compressedFlag;
        BinaryPrimitives.WriteUInt32BigEndian(frame.AsSpan(1), (uint)message.Length);
        message.CopyTo(frame, 5);
        return frame;
    }

    public static async Task<HttpResponseMessage> PostAsync(
        HttpClient http,
        string path,
        byte[] body,
        string contentType = "application/grpc",
        IEnumerable<KeyValuePair<string, string>>? headers = null)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, path)
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new ByteArrayContent(body),
        };
        request.Content.Headers.ContentType = MediaTypeHeaderValue.Parse(contentType);
        request.Headers.TE.ParseAdd("trailers");
        foreach (var (key, value) in headers ?? [])
        {
            request.Headers.TryAddWithoutValidation(key, value);
        }

        var response = await http.SendAsync(request, Kobo.Sync.SyncApi.Tests.Support.TestTimeout.Token);
        // Reading to the end makes the trailers (if any) available.
        await response.Content.LoadIntoBufferAsync();
        return response;
    }

    /// <summary>grpc-status from the headers (Trailers-Only) or else the trailers.</summary>
    public static string? Status(HttpResponseMessage response) => Header(response, "grpc-status");

    public static string? Header(HttpResponseMessage response, string name) =>
        response.Headers.TryGetValues(name, out var values) ? values.Single()
        : response.TrailingHeaders.TryGetValues(name, out var trailing) ? trailing.Single()
        : null;
}
