using System.Net;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Interop;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>
/// What the gRPC listener serves, and only that: the sync service, the standard health service and
/// server reflection, discoverable by an independent client; none of the REST surface.
/// </summary>
public sealed class GrpcListenerSurfaceTests(SyncGrpcTestHost host) : IClassFixture<SyncGrpcTestHost>
{
    [NodeInteropFact]
    public async Task ServerReflectionListsTheSyncAndHealthServicesToAnIndependentClient()
    {
        var result = await InteropClient.ReflectAsync(host.Target, "kobo.sync.v1.SyncService", As(12));

        Assert.True(result.Ok, result.ToString());
        var services = result.Json.GetProperty("services").EnumerateArray().Select(s => s.GetString()).ToList();
        Assert.Contains("kobo.sync.v1.SyncService", services);
        Assert.Contains("grpc.health.v1.Health", services);
        var methods = result.Json.GetProperty("symbol").GetProperty("services").GetProperty("kobo.sync.v1.SyncService")
            .EnumerateArray().Select(m => m.GetString()).ToList();
        Assert.Equal(
            ["GetUser", "ListUserHighlights", "ListBookHighlights", "PushChanges", "PullChanges", "ListDevices", "RevokeDevice", "WatchChanges",
             "GetReadingState", "PutReadingState", "ListKoboLinks", "RevokeKoboLink",
             "ListCollections", "GetCollection", "PushCollectionChanges"],
            methods);
    }

    [NodeInteropFact]
    public async Task ServerReflectionNeedsADeviceToken()
    {
        var result = await InteropClient.ReflectAsync(host.Target, "kobo.sync.v1.SyncService");

        Assert.False(result.Ok, result.ToString());
        Assert.Equal((int)StatusCode.Unauthenticated, result.Code);
    }

    [Fact]
    public async Task TheGeneratedClientMakesAUnaryCallWithinItsDeadline()
    {
        var user = await host.Client.Sync.GetUserAsync(
            new GetUserRequest { UserNo = 12 }, GrpcTestClient.ToMetadata(As(12)), DateTime.UtcNow.AddSeconds(10), TestTimeout.Token);

        Assert.Equal(12, user.UserNo);
    }

    [Theory]
    [InlineData("/v1/users/12")]
    [InlineData("/v1/users/12/highlights")]
    [InlineData("/healthz/ready")]
    [InlineData("/metrics")]
    [InlineData("/openapi/v1.json")]
    public async Task RestPathsAreNotServedOverH2cOnTheGrpcListener(string path)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, path) { Version = HttpVersion.Version20, VersionPolicy = HttpVersionPolicy.RequestVersionExact };
        request.Headers.Authorization = new("Bearer", TestTokens.For(12));

        using var response = await host.Http.SendAsync(request, TestTimeout.Token);

        Assert.Equal(HttpVersion.Version20, response.Version);
        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Empty(await response.Content.ReadAsByteArrayAsync(TestTimeout.Token));
    }

    [Fact]
    public async Task TheSameRestPathIsServedOnTheRestListener()
    {
        using var rest = new HttpClient { BaseAddress = host.RestAddress };

        using var response = await rest.GetAsync("/healthz/ready", TestTimeout.Token);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }
}
