using System.Net;
using Grpc.Core;
using Grpc.Health.V1;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Support;

/// <summary>Requests of every kind against a <see cref="SyncGrpcTestHost"/>: REST and gRPC reads, errors, health.</summary>
public static class DeviceTraffic
{
    public const string GrpcService = "kobo.sync.v1.SyncService";

    /// <summary>A user number the demo data does not have.</summary>
    public const long UnknownUser = 987_654_321;

    public static HttpClient Rest(SyncGrpcTestHost host, long? user) =>
        new HttpClient { BaseAddress = host.RestAddress }.WithToken(user is { } u ? TestTokens.For(u) : null);

    public static async Task<HttpStatusCode> GetAsync(HttpClient client, string path)
    {
        using var response = await client.GetAsync(new Uri(path, UriKind.Relative), TestTimeout.Token);
        await response.Content.ReadAsStringAsync(TestTimeout.Token);
        return response.StatusCode;
    }

    public static Task<User> GrpcGetUserAsync(SyncGrpcTestHost host, long user) => host.Client.UnaryAsync(
        GrpcService, "GetUser", new GetUserRequest { UserNo = user }, User.Parser, SyncGrpcTestHost.As(user), cancellationToken: TestTimeout.Token);

    public static Task<HighlightPage> GrpcListUserHighlightsAsync(SyncGrpcTestHost host, long user, string cursor = "") => host.Client.UnaryAsync(
        GrpcService, "ListUserHighlights", new ListUserHighlightsRequest { UserNo = user, PageSize = 5, Cursor = cursor }, HighlightPage.Parser,
        SyncGrpcTestHost.As(user), cancellationToken: TestTimeout.Token);

    /// <summary>One request of each kind, errors and health included.</summary>
    public static async Task MixedAsync(SyncGrpcTestHost host, long user)
    {
        using var device = Rest(host, user);
        using var anonymous = Rest(host, null);
        using var stranger = Rest(host, UnknownUser);
        Assert.Equal(HttpStatusCode.OK, await GetAsync(device, $"/v1/users/{user}"));
        Assert.Equal(HttpStatusCode.OK, await GetAsync(device, $"/v1/users/{user}/highlights?pageSize=5"));
        Assert.Equal(HttpStatusCode.OK, await GetAsync(device, $"/v1/users/{user}/books/1/highlights"));
        Assert.Equal(HttpStatusCode.BadRequest, await GetAsync(device, $"/v1/users/{user}/highlights?pageSize=0"));
        Assert.Equal(HttpStatusCode.Unauthorized, await GetAsync(anonymous, $"/v1/users/{user}"));
        Assert.Equal(HttpStatusCode.Forbidden, await GetAsync(device, $"/v1/users/{UnknownUser}"));
        Assert.Equal(HttpStatusCode.NotFound, await GetAsync(stranger, $"/v1/users/{UnknownUser}"));
        Assert.Equal(HttpStatusCode.NotFound, await GetAsync(anonymous, "/v1/no-such-thing"));
        Assert.Equal(HttpStatusCode.OK, await GetAsync(anonymous, "/healthz/live"));
        Assert.Equal(HttpStatusCode.OK, await GetAsync(anonymous, "/healthz/ready"));

        await GrpcGetUserAsync(host, user);
        await GrpcListUserHighlightsAsync(host, user);
        var denied = await Assert.ThrowsAsync<RpcException>(() => host.Client.UnaryAsync(
            GrpcService, "GetUser", new GetUserRequest { UserNo = user }, User.Parser, cancellationToken: TestTimeout.Token));
        Assert.Equal(StatusCode.Unauthenticated, denied.StatusCode);
        var notFound = await Assert.ThrowsAsync<RpcException>(() => GrpcGetUserAsync(host, UnknownUser));
        Assert.Equal(StatusCode.NotFound, notFound.StatusCode);
        await host.Client.UnaryAsync(
            "grpc.health.v1.Health", "Check", new HealthCheckRequest(), HealthCheckResponse.Parser, cancellationToken: TestTimeout.Token);
    }
}
