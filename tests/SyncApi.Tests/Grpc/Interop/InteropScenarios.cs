using Grpc.Core;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Interop;

/// <summary>
/// What an independent gRPC client must see from the whole service (real storage on the shared demo
/// database, real device tokens) on real listeners: the same scenarios for each client. The deadline
/// and NOT_SERVING scenarios need a database of their own: <see cref="GrpcStoreDeadlineTests"/> and
/// <see cref="GrpcHealthWithStorageDownTests"/>.
/// </summary>
public abstract class InteropScenarios(InteropClient client, SyncGrpcTestHost host)
{
    private const string Sync = "kobo.sync.v1.SyncService";

    private static Task<DemoDatabase> Database => SharedDemoDatabase.GetAsync();

    protected async Task HealthCheckAnswersServingAndNotFound()
    {
        var overall = await client.CallAsync(host.Target, "grpc.health.v1.Health/Check", """{"service":""}""");
        var sync = await client.CallAsync(host.Target, "grpc.health.v1.Health/Check", $$"""{"service":"{{Sync}}"}""");
        var unknown = await client.CallAsync(host.Target, "grpc.health.v1.Health/Check", """{"service":"no.such.Service"}""");

        Assert.Equal("SERVING", overall.Response.GetProperty("status").GetString());
        Assert.Equal("SERVING", sync.Response.GetProperty("status").GetString());
        Assert.Equal((int)StatusCode.NotFound, unknown.Code);
    }

    protected async Task AnUnknownMethodIsUnimplemented()
    {
        var result = await client.CallAsync(host.Target, $"{Sync}/NoSuchMethod", "{}");

        Assert.Equal((int)StatusCode.Unimplemented, result.Code);
    }

    protected async Task GetUserReturnsTheStoredUser()
    {
        var stored = await (await Database).UserAsync(12);

        var result = await client.CallAsync(host.Target, $"{Sync}/GetUser", """{"user_no":12}""", As(12));

        Assert.True(result.Ok, result.ToString());
        Assert.Equal("12", result.Response.GetProperty("user_no").GetString());
        Assert.Equal(stored.Name, result.Response.GetProperty("name").GetString());
        Assert.Equal(stored.Country ?? string.Empty, result.Response.GetProperty("country").GetString());
        Assert.Equal(
            stored.CreatedAt.ToUnixTimeSeconds().ToString(System.Globalization.CultureInfo.InvariantCulture),
            result.Response.GetProperty("created_at").GetProperty("seconds").GetString());
    }

    protected async Task BookHighlightsPageWithACursorAndKeepLookAlikeBooksApart()
    {
        var stored = await (await Database).HighlightsAsync(12, 5);
        Assert.True(stored.Count >= 2, $"user 12 holds {stored.Count} highlights in book 5");

        var first = await client.CallAsync(host.Target, $"{Sync}/ListBookHighlights", """{"user_no":12,"book_no":5,"page_size":1}""", As(12));
        var cursor = first.Response.GetProperty("next_cursor").GetString();
        var second = await client.CallAsync(
            host.Target, $"{Sync}/ListBookHighlights", $$"""{"user_no":12,"book_no":5,"page_size":1,"cursor":"{{cursor}}"}""", As(12));

        Assert.True(first.Ok, first.ToString());
        Assert.Equal(stored[0].Id, first.Response.GetProperty("items")[0].GetProperty("id").GetString());
        Assert.Equal(stored[0].Text, first.Response.GetProperty("items")[0].GetProperty("text").GetString());
        Assert.False(string.IsNullOrEmpty(cursor));
        Assert.True(second.Ok, second.ToString());
        Assert.Equal(stored[1].Id, second.Response.GetProperty("items")[0].GetProperty("id").GetString());
        Assert.Equal("5", second.Response.GetProperty("items")[0].GetProperty("book_no").GetString());
    }

    protected async Task RejectionsCarryTheirStatusCodes()
    {
        var noToken = await client.CallAsync(host.Target, $"{Sync}/GetUser", """{"user_no":12}""");
        var otherUser = await client.CallAsync(host.Target, $"{Sync}/GetUser", """{"user_no":123}""", As(12));
        var missing = await client.CallAsync(host.Target, $"{Sync}/ListUserHighlights", """{"user_no":987654321}""", As(987_654_321));
        var badSize = await client.CallAsync(host.Target, $"{Sync}/ListUserHighlights", """{"user_no":12,"page_size":500}""", As(12));

        Assert.Equal((int)StatusCode.Unauthenticated, noToken.Code);
        Assert.Equal("A bearer token is required in the authorization metadata.", noToken.Details);
        Assert.Equal((int)StatusCode.PermissionDenied, otherUser.Code);
        Assert.Equal((int)StatusCode.NotFound, missing.Code);
        Assert.Equal((int)StatusCode.InvalidArgument, badSize.Code);
        Assert.StartsWith("pageSize:", badSize.Details, StringComparison.Ordinal);
    }
}

public sealed class NodeGrpcInteropTests(SyncGrpcTestHost host)
    : InteropScenarios(InteropClient.Node, host), IClassFixture<SyncGrpcTestHost>
{
    [NodeInteropFact] public Task HealthCheck() => HealthCheckAnswersServingAndNotFound();

    [NodeInteropFact] public Task UnknownMethod() => AnUnknownMethodIsUnimplemented();

    [NodeInteropFact] public Task GetUser() => GetUserReturnsTheStoredUser();

    [NodeInteropFact] public Task ListBookHighlights() => BookHighlightsPageWithACursorAndKeepLookAlikeBooksApart();

    [NodeInteropFact] public Task Rejections() => RejectionsCarryTheirStatusCodes();

}

public sealed class PythonGrpcInteropTests(SyncGrpcTestHost host)
    : InteropScenarios(InteropClient.Python, host), IClassFixture<SyncGrpcTestHost>
{
    [PythonInteropFact] public Task HealthCheck() => HealthCheckAnswersServingAndNotFound();

    [PythonInteropFact] public Task UnknownMethod() => AnUnknownMethodIsUnimplemented();

    [PythonInteropFact] public Task GetUser() => GetUserReturnsTheStoredUser();

    [PythonInteropFact] public Task ListBookHighlights() => BookHighlightsPageWithACursorAndKeepLookAlikeBooksApart();

    [PythonInteropFact] public Task Rejections() => RejectionsCarryTheirStatusCodes();

}
