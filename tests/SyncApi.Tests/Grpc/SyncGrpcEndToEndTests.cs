using System.Net;
using Kobo.Sync.SyncApi.Grpc.Health.V1;
using Kobo.Sync.SyncApi.Grpc.V1;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Grpc.Wire.Client;
using Kobo.Sync.SyncApi.Tests.Grpc.Interop;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>
/// The whole service (Program.cs with real storage and the real device token handler) over gRPC,
/// from the in-house client and both independent clients.
/// To enable: Program.cs calls <c>AddSyncGrpc()</c>/<c>MapSyncGrpc()</c>; wire <see cref="EndToEndSetup"/>
/// to the PostgreSQL fixture and the token issuer; remove the Skip.
/// </summary>
public sealed class SyncGrpcEndToEndTests : IDisposable
{
    private const string NeedsStorage = "needs storage";
    private const string Sync = "kobo.sync.v1.SyncService";

    private readonly int _grpcPort = SyncGrpcTestHost.FreePort();
    private readonly SyncApiFactory _factory;
    private readonly HttpClient _http;
    private readonly GrpcUnaryClient _client;

    public SyncGrpcEndToEndTests()
    {
        _factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = $"http://127.0.0.1:{SyncGrpcTestHost.FreePort()}",
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{_grpcPort}",
            ["Storage:ConnectionString"] = EndToEndSetup.ConnectionString,
        });
        _factory.UseKestrel();
        _factory.StartServer();
        _http = WireTestServer.NewHttpClient(new Uri($"http://127.0.0.1:{_grpcPort}"));
        _client = new GrpcUnaryClient(_http);
    }

    private string Target => $"127.0.0.1:{_grpcPort}";

    private static KeyValuePair<string, string>[] As(long user) => [new("authorization", EndToEndSetup.BearerTokenFor(user))];

    [Fact(Skip = NeedsStorage)]
    public async Task HealthIsServingWithStorageUp()
    {
        var response = await _client.UnaryAsync(
            "grpc.health.v1.Health", "Check", new HealthCheckRequest(), HealthCheckResponse.Parser, cancellationToken: TestTimeout.Token);

        Assert.Equal(HealthCheckResponse.Types.ServingStatus.Serving, response.Status);
    }

    [Fact(Skip = NeedsStorage)]
    public async Task GetUserReadsTheSeededUser()
    {
        var user = await _client.UnaryAsync(
            Sync, "GetUser", new GetUserRequest { UserNo = EndToEndSetup.SeededUser }, User.Parser,
            metadata: As(EndToEndSetup.SeededUser), cancellationToken: TestTimeout.Token);

        Assert.Equal(EndToEndSetup.SeededUser, user.UserNo);
        Assert.NotEmpty(user.Name);
    }

    [Fact(Skip = NeedsStorage)]
    public async Task UserHighlightsPageThroughTheStore()
    {
        var page = await _client.UnaryAsync(
            Sync, "ListUserHighlights", new ListUserHighlightsRequest { UserNo = EndToEndSetup.SeededUser, PageSize = 5 },
            Kobo.Sync.SyncApi.Grpc.V1.HighlightPage.Parser, metadata: As(EndToEndSetup.SeededUser), cancellationToken: TestTimeout.Token);

        Assert.InRange(page.Items.Count, 0, 5);
    }

    [Fact(Skip = NeedsStorage)]
    public async Task AForgedTokenIsUnauthenticated()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => _client.UnaryAsync(
            Sync, "GetUser", new GetUserRequest { UserNo = EndToEndSetup.SeededUser }, User.Parser,
            metadata: [new("authorization", "Bearer not-a-jwt")], cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.Unauthenticated, error.Status);
    }

    [Fact(Skip = NeedsStorage)]
    public async Task AnotherUsersDataIsPermissionDenied()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => _client.UnaryAsync(
            Sync, "GetUser", new GetUserRequest { UserNo = EndToEndSetup.SeededUser + 1 }, User.Parser,
            metadata: As(EndToEndSetup.SeededUser), cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.PermissionDenied, error.Status);
    }

    [Fact(Skip = NeedsStorage)]
    public async Task AUserThatDoesNotExistIsNotFound()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => _client.UnaryAsync(
            Sync, "GetUser", new GetUserRequest { UserNo = EndToEndSetup.MissingUser }, User.Parser,
            metadata: As(EndToEndSetup.MissingUser), cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.NotFound, error.Status);
    }

    [Fact(Skip = NeedsStorage)]
    public async Task AnAlreadyExpiredDeadlineIsDeadlineExceeded()
    {
        using var response = await RawGrpc.PostAsync(
            _http, $"/{Sync}/GetUser",
            RawGrpc.Frame(Google.Protobuf.MessageExtensions.ToByteArray(new GetUserRequest { UserNo = EndToEndSetup.SeededUser })),
            headers: [new("grpc-timeout", "1n"), .. As(EndToEndSetup.SeededUser)]);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("4", RawGrpc.Status(response));
    }

    [Fact(Skip = NeedsStorage)]
    public async Task TheNodeClientReadsTheSeededUser()
    {
        var result = await InteropClient.Node.CallAsync(Target, $"{Sync}/GetUser", $$"""{"user_no":{{EndToEndSetup.SeededUser}}}""", As(EndToEndSetup.SeededUser), deadlineMs: 5000);

        Assert.True(result.Ok, result.ToString());
    }

    [Fact(Skip = NeedsStorage)]
    public async Task ThePythonClientReadsTheSeededUser()
    {
        var result = await InteropClient.Python.CallAsync(Target, $"{Sync}/GetUser", $$"""{"user_no":{{EndToEndSetup.SeededUser}}}""", As(EndToEndSetup.SeededUser), deadlineMs: 5000);

        Assert.True(result.Ok, result.ToString());
    }

    public void Dispose()
    {
        _http.Dispose();
        _factory.Dispose();
    }

    /// <summary>The two things these tests need from main once storage and the token handler land there.</summary>
    private static class EndToEndSetup
    {
        public const long SeededUser = 1;
        public const long MissingUser = 999_999_999;

        // Replace with the PostgreSQL fixture's connection string (and seed SeededUser there).
        public static string? ConnectionString => null;

        // Replace with a real device token signed the way DeviceTokenHandler validates.
        public static string BearerTokenFor(long userNo) =>
            throw new NotImplementedException($"No device token issuer yet (user {userNo}).");
    }
}
