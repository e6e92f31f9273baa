using Kobo.Sync.SyncApi.Grpc.V1;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Interop;

/// <summary>
/// What an independent gRPC client must see from the service: the same scenarios for each client,
/// run against the service's own composition (test doubles for storage and tokens) on real listeners.
/// </summary>
public abstract class InteropScenarios(InteropClient client) : IAsyncLifetime
{
    private const string Sync = "kobo.sync.v1.SyncService";
    private SyncGrpcTestHost _host = null!;

    public async Task InitializeAsync() => _host = await SyncGrpcTestHost.StartAsync();

    public async Task DisposeAsync() => await _host.DisposeAsync();

    private static KeyValuePair<string, string>[] As(long user) => [new("authorization", TestDeviceTokenHandler.TokenFor(user))];

    protected async Task HealthCheckAnswersServingAndNotFound()
    {
        var overall = await client.CallAsync(_host.Target, "grpc.health.v1.Health/Check", """{"service":""}""");
        var sync = await client.CallAsync(_host.Target, "grpc.health.v1.Health/Check", $$"""{"service":"{{Sync}}"}""");
        var unknown = await client.CallAsync(_host.Target, "grpc.health.v1.Health/Check", """{"service":"no.such.Service"}""");
        _host.Store.Ready = false;
        var down = await client.CallAsync(_host.Target, "grpc.health.v1.Health/Check", """{"service":""}""");

        Assert.Equal("SERVING", overall.Response.GetProperty("status").GetString());
        Assert.Equal("SERVING", sync.Response.GetProperty("status").GetString());
        Assert.Equal((int)StatusCode.NotFound, unknown.Code);
        Assert.Equal("NOT_SERVING", down.Response.GetProperty("status").GetString());
    }

    protected async Task AnUnknownMethodIsUnimplemented()
    {
        var result = await client.CallAsync(_host.Target, $"{Sync}/NoSuchMethod", "{}");

        Assert.Equal((int)StatusCode.Unimplemented, result.Code);
    }

    protected async Task GetUserReturnsTheUser()
    {
        var result = await client.CallAsync(_host.Target, $"{Sync}/GetUser", """{"user_no":1}""", As(1));

        Assert.True(result.Ok, result.ToString());
        Assert.Equal("1", result.Response.GetProperty("user_no").GetString());
        Assert.Equal("Ada Lovelace", result.Response.GetProperty("name").GetString());
        Assert.Equal("GB", result.Response.GetProperty("country").GetString());
        Assert.Equal(
            FakeDeviceReadStore.Created.ToUnixTimeSeconds().ToString(System.Globalization.CultureInfo.InvariantCulture),
            result.Response.GetProperty("created_at").GetProperty("seconds").GetString());
    }

    protected async Task BookHighlightsPageWithACursor()
    {
        var first = await client.CallAsync(_host.Target, $"{Sync}/ListBookHighlights", """{"user_no":1,"book_no":10,"page_size":5}""", As(1));
        var cursor = first.Response.GetProperty("next_cursor").GetString();
        var second = await client.CallAsync(
            _host.Target, $"{Sync}/ListBookHighlights", $$"""{"user_no":1,"book_no":10,"page_size":5,"cursor":"{{cursor}}"}""", As(1));

        Assert.True(first.Ok, first.ToString());
        Assert.Equal(5, first.Response.GetProperty("items").GetArrayLength());
        Assert.Equal("first note", first.Response.GetProperty("items")[0].GetProperty("note").GetString());
        Assert.False(string.IsNullOrEmpty(cursor));
        Assert.True(second.Ok, second.ToString());
        Assert.Equal("Highlighted text 6 in book 10", second.Response.GetProperty("items")[0].GetProperty("text").GetString());
    }

    protected async Task RejectionsCarryTheirStatusCodes()
    {
        var noToken = await client.CallAsync(_host.Target, $"{Sync}/GetUser", """{"user_no":1}""");
        var otherUser = await client.CallAsync(_host.Target, $"{Sync}/GetUser", """{"user_no":1}""", As(2));
        var missing = await client.CallAsync(_host.Target, $"{Sync}/ListUserHighlights", """{"user_no":3}""", As(3));
        var badSize = await client.CallAsync(_host.Target, $"{Sync}/ListUserHighlights", """{"user_no":1,"page_size":500}""", As(1));

        Assert.Equal((int)StatusCode.Unauthenticated, noToken.Code);
        Assert.Equal("A bearer token is required in the authorization metadata.", noToken.Details);
        Assert.Equal((int)StatusCode.PermissionDenied, otherUser.Code);
        Assert.Equal((int)StatusCode.NotFound, missing.Code);
        Assert.Equal((int)StatusCode.InvalidArgument, badSize.Code);
        Assert.StartsWith("pageSize:", badSize.Details, StringComparison.Ordinal);
    }

    protected async Task TheDeadlineReachesTheStoreCall()
    {
        var result = await client.CallAsync(
            _host.Target, $"{Sync}/GetUser", $$"""{"user_no":{{FakeDeviceReadStore.SlowUser}}}""", As(FakeDeviceReadStore.SlowUser), deadlineMs: 300);

        Assert.Equal((int)StatusCode.DeadlineExceeded, result.Code);
        Assert.True(await _host.Store.SlowCallCancelled.Task.WaitAsync(TimeSpan.FromSeconds(5)));
    }

    protected async Task ANonAsciiStatusMessageArrivesIntact()
    {
        await using var wire = await WireTestServer.StartAsync(endpoints =>
            endpoints.MapGrpcUnary<GetUserRequest, User>(Sync, "GetUser", GetUserRequest.Parser, (_, _) =>
                throw new RpcException(StatusCode.FailedPrecondition, GrpcWireTests.NonAsciiDetail)));

        var result = await client.CallAsync(wire.Target, $"{Sync}/GetUser", """{"user_no":1}""");

        Assert.Equal((int)StatusCode.FailedPrecondition, result.Code);
        Assert.Equal(GrpcWireTests.NonAsciiDetail, result.Details);
    }
}

public sealed class NodeGrpcInteropTests() : InteropScenarios(InteropClient.Node)
{
    [NodeInteropFact] public Task HealthCheck() => HealthCheckAnswersServingAndNotFound();

    [NodeInteropFact] public Task UnknownMethod() => AnUnknownMethodIsUnimplemented();

    [NodeInteropFact] public Task GetUser() => GetUserReturnsTheUser();

    [NodeInteropFact] public Task ListBookHighlights() => BookHighlightsPageWithACursor();

    [NodeInteropFact] public Task Rejections() => RejectionsCarryTheirStatusCodes();

    [NodeInteropFact] public Task Deadline() => TheDeadlineReachesTheStoreCall();

    [NodeInteropFact] public Task NonAsciiStatusMessage() => ANonAsciiStatusMessageArrivesIntact();
}

public sealed class PythonGrpcInteropTests() : InteropScenarios(InteropClient.Python)
{
    [PythonInteropFact] public Task HealthCheck() => HealthCheckAnswersServingAndNotFound();

    [PythonInteropFact] public Task UnknownMethod() => AnUnknownMethodIsUnimplemented();

    [PythonInteropFact] public Task GetUser() => GetUserReturnsTheUser();

    [PythonInteropFact] public Task ListBookHighlights() => BookHighlightsPageWithACursor();

    [PythonInteropFact] public Task Rejections() => RejectionsCarryTheirStatusCodes();

    [PythonInteropFact] public Task Deadline() => TheDeadlineReachesTheStoreCall();

    [PythonInteropFact] public Task NonAsciiStatusMessage() => ANonAsciiStatusMessageArrivesIntact();
}
