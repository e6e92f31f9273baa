using System.Diagnostics;
using System.Net;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

/// <summary>One request, one trace: the server span, a span per database command under it, and the same trace id in the request's log line.</summary>
[Collection(TelemetryCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class TraceTests(TracedService service) : IClassFixture<TracedService>
{
    [Fact]
    public async Task ARestReadIsOneTraceWithTheHttpSpanAndItsDatabaseCommandAndTheLogLineCarriesItsTraceId()
    {
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        using var device = DeviceTraffic.Rest(service.Host, user);
        var before = service.Host.Logs.RequestLines.Count;

        Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(device, $"/v1/users/{user}/highlights?pageSize=3"));

        var line = Assert.Single(service.Host.Logs.RequestLines.Skip(before));
        Assert.NotNull(line.TraceId);
        var spans = await service.TraceAsync(ActivityTraceId.CreateFromString(line.TraceId.Value.ToHexString()));
        var server = Assert.Single(spans, s => s.Kind == ActivityKind.Server);
        Assert.Equal("GET /v1/users/{userNo}/highlights", server.DisplayName);
        Assert.Equal("/v1/users/{userNo}/highlights", server.GetTagItem("http.route"));
        Assert.Null(server.GetTagItem("url.path"));
        Assert.DoesNotContain("=3", server.GetTagItem("url.query") as string ?? string.Empty, StringComparison.Ordinal);
        Assert.Equal(line.SpanId?.ToHexString(), server.SpanId.ToHexString());
        AssertOneDatabaseCommandUnder(server, spans, "highlights");
    }

    [Fact]
    public async Task AGrpcCallIsOneTraceWithTheRpcSpanAndItsDatabaseCommandAndTheLogLineCarriesItsTraceId()
    {
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        var before = service.Host.Logs.RequestLines.Count;

        await DeviceTraffic.GrpcGetUserAsync(service.Host, user);

        var line = Assert.Single(service.Host.Logs.RequestLines.Skip(before));
        var spans = await service.TraceAsync(ActivityTraceId.CreateFromString(line.TraceId!.Value.ToHexString()));
        var server = Assert.Single(spans, s => s.Kind == ActivityKind.Server);
        Assert.Equal("kobo.sync.v1.SyncService/GetUser", server.DisplayName);
        Assert.Equal("grpc", server.GetTagItem("rpc.system"));
        Assert.Equal("kobo.sync.v1.SyncService", server.GetTagItem("rpc.service"));
        Assert.Equal("GetUser", server.GetTagItem("rpc.method"));
        Assert.Equal(0, server.GetTagItem("rpc.grpc.status_code"));
        AssertOneDatabaseCommandUnder(server, spans, "users");
    }

    [Fact]
    public async Task AScrapeRecordsNoSpan()
    {
        using var anonymous = DeviceTraffic.Rest(service.Host, null);
        await Scrape.TextAsync(anonymous);
        var before = service.Host.Logs.RequestLines.Count;

        // A request after the scrape: once its trace is complete, the scrape's would be too.
        Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(anonymous, "/healthz/live"));
        var line = Assert.Single(service.Host.Logs.RequestLines.Skip(before));
        Assert.NotEmpty(await service.TraceAsync(ActivityTraceId.CreateFromString(line.TraceId!.Value.ToHexString())));

        Assert.DoesNotContain(service.AllSpans(), s => s.GetTagItem("http.route") is "/metrics");
    }

    private static void AssertOneDatabaseCommandUnder(Activity server, IReadOnlyList<Activity> spans, string table)
    {
        // Every span of the trace descends from the server span, but for the test's own HttpClient span
        // that the server continued (its traceparent header): nothing is orphaned or left in another trace.
        var ids = spans.ToDictionary(s => s.SpanId);
        Assert.All(spans.Where(s => s != server && s.SpanId != server.ParentSpanId), span =>
        {
            var parent = span.ParentSpanId;
            while (parent != server.SpanId)
            {
                Assert.True(ids.TryGetValue(parent, out var up), $"span {span.DisplayName} is not under the server span");
                parent = up!.ParentSpanId;
            }
        });

        var commands = spans.Where(s => s.Source.Name == "Npgsql" && s.Kind == ActivityKind.Client && QueryText(s) is not null).ToList();
        var command = Assert.Single(commands);
        Assert.Contains(table, QueryText(command), StringComparison.Ordinal);
        Assert.True(command.StartTimeUtc >= server.StartTimeUtc && command.StartTimeUtc + command.Duration <= server.StartTimeUtc + server.Duration);
    }

    private static string? QueryText(Activity span) =>
        (span.GetTagItem("db.query.text") ?? span.GetTagItem("db.statement")) as string;
}
