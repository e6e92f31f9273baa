using System.Diagnostics;
using System.Net.Http.Headers;
using Google.Protobuf;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;

namespace Kobo.Sync.SyncApi.Tests.Support.Faults;

/// <summary>One device call, as the fault tests send it, and what came back.</summary>
public static class DeviceRequests
{
    public static HttpRequestMessage GetUser(long user, string device = "test-device")
    {
        var request = new HttpRequestMessage(HttpMethod.Get, $"/v1/users/{user}");
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(user, device));
        return request;
    }

    /// <summary>GET /v1/users/{user} over REST: status, Retry-After (seconds), content type, elapsed.</summary>
    public static async Task<Answer> RestGetUserAsync(HttpClient rest, long user, string device = "test-device")
    {
        var clock = Stopwatch.StartNew();
        using var response = await rest.SendAsync(GetUser(user, device));
        var body = await response.Content.ReadAsStringAsync();
        return new Answer(
            (int)response.StatusCode,
            response.Headers.RetryAfter?.Delta,
            response.Content.Headers.ContentType?.MediaType,
            body,
            clock.Elapsed);
    }

    /// <summary>GetUser over gRPC: the grpc-status, the retry pushback (ms) and the elapsed time.</summary>
    public static async Task<GrpcAnswer> GrpcGetUserAsync(HttpClient grpc, long user, string device = "test-device")
    {
        var clock = Stopwatch.StartNew();
        using var response = await RawGrpc.PostAsync(
            grpc, "/kobo.sync.v1.SyncService/GetUser",
            RawGrpc.Frame(new GetUserRequest { UserNo = user }.ToByteArray()),
            headers: [new("authorization", $"Bearer {TestTokens.For(user, device)}")]);
        return new GrpcAnswer(
            int.Parse(RawGrpc.Status(response) ?? "-1", System.Globalization.CultureInfo.InvariantCulture),
            RawGrpc.Header(response, "grpc-retry-pushback-ms"),
            RawGrpc.Header(response, "grpc-message"),
            clock.Elapsed);
    }

    public readonly record struct Answer(int Status, TimeSpan? RetryAfter, string? ContentType, string Body, TimeSpan Elapsed);

    public readonly record struct GrpcAnswer(int Status, string? RetryPushbackMs, string? Message, TimeSpan Elapsed);
}
