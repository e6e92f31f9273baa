using System.Net;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using GrpcStatusCode = Grpc.Core.StatusCode;
using RpcException = Grpc.Core.RpcException;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

[Collection(TelemetryCollection.Name)]

[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class MetricsEndpointTests(SyncGrpcTestHost host) : IClassFixture<SyncGrpcTestHost>
{
    [Fact]
    public async Task AScrapeAfterRestGrpcErrorAndHealthTrafficPassesPromtool()
    {
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        await DeviceTraffic.MixedAsync(host, user);

        var text = await ScrapeAsync();
        var (exitCode, output) = await PrometheusTools.CheckMetricsAsync(text);

        Assert.True(exitCode == 0, $"promtool check metrics failed ({exitCode}):\n{output}\n--- scrape ---\n{text}");
        Assert.Contains("# TYPE kobo_sync_requests_total counter", text, StringComparison.Ordinal);
        Assert.Contains("# TYPE kobo_sync_request_duration_seconds histogram", text, StringComparison.Ordinal);
        Assert.Contains("# TYPE http_server_request_duration_seconds histogram", text, StringComparison.Ordinal);
        Assert.Contains("# TYPE kestrel_active_connections gauge", text, StringComparison.Ordinal);
        Assert.Contains("dotnet_gc_", text, StringComparison.Ordinal);
        Assert.Contains("db_client_", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RequestsAreCountedByEndpointProtocolAndOutcomeAndTimedInTheLatencyHistogram()
    {
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        var before = await ScrapeAsync();

        using var device = DeviceTraffic.Rest(host, user);
        for (var i = 0; i < 3; i++)
        {
            Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(device, $"/v1/users/{user}"));
        }

        Assert.Equal(HttpStatusCode.Forbidden, await DeviceTraffic.GetAsync(device, $"/v1/users/{DeviceTraffic.UnknownUser}"));
        await DeviceTraffic.GrpcGetUserAsync(host, user);
        await DeviceTraffic.GrpcGetUserAsync(host, user);
        var notFound = await Assert.ThrowsAsync<RpcException>(
            () => DeviceTraffic.GrpcGetUserAsync(host, DeviceTraffic.UnknownUser));
        Assert.Equal(GrpcStatusCode.NotFound, notFound.StatusCode);

        var after = await ScrapeAsync();
        double Delta(string name, params (string, string)[] labels) => Exposition.Sum(after, name, labels) - Exposition.Sum(before, name, labels);

        Assert.Equal(3, Delta("kobo_sync_requests_total", ("endpoint", "GetUser"), ("protocol", "rest"), ("outcome", "ok")));
        Assert.Equal(1, Delta("kobo_sync_requests_total", ("endpoint", "GetUser"), ("protocol", "rest"), ("outcome", "permission_denied")));
        Assert.Equal(2, Delta("kobo_sync_requests_total", ("endpoint", "GetUser"), ("protocol", "grpc"), ("outcome", "ok")));
        Assert.Equal(1, Delta("kobo_sync_requests_total", ("endpoint", "GetUser"), ("protocol", "grpc"), ("outcome", "not_found")));
        Assert.Equal(4, Delta("kobo_sync_request_duration_seconds_count", ("endpoint", "GetUser"), ("protocol", "rest")));
        Assert.Equal(4, Delta("kobo_sync_request_duration_seconds_bucket", ("endpoint", "GetUser"), ("protocol", "rest"), ("le", "+Inf")));
        Assert.Equal(3, Delta("kobo_sync_request_duration_seconds_count", ("endpoint", "GetUser"), ("protocol", "grpc")));
        Assert.True(Delta("kobo_sync_request_duration_seconds_sum", ("endpoint", "GetUser"), ("protocol", "rest")) > 0);
        // Six reads reached the database: 3 REST and 2 gRPC found users, 1 gRPC unknown user (the forbidden one never got that far).
        Assert.Equal(6, Delta("kobo_sync_db_operation_duration_seconds_count", ("operation", "find_user")));
    }

    [Fact]
    public async Task TheDatabaseNodeIsTheHostAndPortOfTheServerThatAnswered()
    {
        var database = await SharedDemoDatabase.GetAsync();
        var connection = new Npgsql.NpgsqlConnectionStringBuilder(database.ConnectionString);
        using var device = DeviceTraffic.Rest(host, database.HeavyUser.Value);
        Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(device, $"/v1/users/{database.HeavyUser.Value}/highlights"));

        var text = await ScrapeAsync();

        Assert.True(Exposition.Sum(text, "kobo_sync_db_operation_duration_seconds_count",
            ("operation", "list_highlights"), ("node", $"{connection.Host}:{connection.Port}")) >= 1, text);
        Assert.True(Exposition.Sum(text, "kobo_sync_highlights_per_page_count", ("endpoint", "ListUserHighlights"), ("protocol", "rest")) >= 1, text);
    }

    /// <summary>
    /// In a process of its own, so that only the service's connections are on the scrape (this test
    /// process's own database connections would be too): no label names a connection string, the
    /// database or the database user.
    /// </summary>
    [Fact]
    public async Task AScrapeShowsNoConnectionStringDatabaseNameOrUserName()
    {
        var database = await SharedDemoDatabase.GetAsync();
        var connection = new Npgsql.NpgsqlConnectionStringBuilder(database.ConnectionString);
        var text = string.Empty;
        await ServiceProcess.RunAsync(Path.GetTempPath(), [], async http =>
        {
            using var user = new HttpRequestMessage(HttpMethod.Get, $"/v1/users/{database.HeavyUser.Value}");
            user.Headers.Authorization = new("Bearer", TestTokens.For(database.HeavyUser.Value));
            Assert.Equal(HttpStatusCode.OK, (await http.SendAsync(user)).StatusCode);
            text = await http.GetStringAsync("/metrics");
        });

        var samples = Exposition.Samples(text).ToList();
        Assert.Contains(samples, s => s.Name.StartsWith("db_client_", StringComparison.Ordinal));
        foreach (var (name, labels, _) in samples)
        {
            foreach (var (label, value) in labels)
            {
                var where = $"{name}{{{label}=\"{value}\"}}";
                Assert.False(value.Contains('=', StringComparison.Ordinal) || value.Contains(';', StringComparison.Ordinal), $"a connection string in {where}");
                Assert.False(value == connection.Database || value == connection.Username, $"the database or user name in {where}");
            }
        }

        var pools = samples.Where(s => s.Labels.ContainsKey("db_client_connection_pool_name")).Select(s => s.Labels["db_client_connection_pool_name"]).ToHashSet();
        // The requests' pool, live pull's listener and signal sender and the start's one look-up of the
        // server's connection limits, each named; no read pool without a read connection string.
        Assert.Equal(["kobo-sync", "kobo-sync-listener", "kobo-sync-signals", "kobo-sync-start"], pools.Order());
    }

    [Fact]
    public async Task ScrapesAreNeitherCountedAsRequestsNorLogged()
    {
        var first = await ScrapeAsync();
        var logged = host.Logs.RequestLines.Count;

        var second = await ScrapeAsync();

        Assert.Equal(Exposition.Sum(first, "kobo_sync_requests_total"), Exposition.Sum(second, "kobo_sync_requests_total"));
        Assert.Equal(0, Exposition.Sum(second, "kobo_sync_requests_total", ("endpoint", "/metrics")));
        Assert.Equal(0, Exposition.Sum(second, "http_server_request_duration_seconds_count", ("http_route", "/metrics")));
        Assert.Equal(logged, host.Logs.RequestLines.Count);
    }

    [Fact]
    public async Task TheScrapeNeedsNoTokenAndSaysItsFormat()
    {
        using var anonymous = DeviceTraffic.Rest(host, null);
        using var request = Scrape.TextRequest();

        using var response = await anonymous.SendAsync(request, TestTimeout.Token);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("text/plain; version=0.0.4; charset=utf-8", response.Content.Headers.ContentType?.ToString());
    }

    private async Task<string> ScrapeAsync()
    {
        using var anonymous = DeviceTraffic.Rest(host, null);
        return await Scrape.TextAsync(anonymous);
    }
}
