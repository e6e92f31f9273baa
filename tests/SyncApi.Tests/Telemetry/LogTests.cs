using System.Net;
using System.Text.Json;
using Kobo.Sync.SyncApi.Infrastructure.Logging;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

public sealed class LogTests
{
    [Fact]
    public async Task TokensCursorsAndHighlightTextNeverReachTheLogsEvenAtTheMostVerboseLevel()
    {
        using var host = new SyncGrpcTestHost(SharedDemoDatabase.ConnectionString, settings: new Dictionary<string, string?>
        {
            ["Serilog:MinimumLevel:Default"] = "Verbose",
            ["Serilog:MinimumLevel:Override:Microsoft.AspNetCore"] = "Verbose",
            ["Serilog:MinimumLevel:Override:Microsoft.Hosting.Lifetime"] = "Verbose",
        });
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        var token = TestTokens.For(user);
        using var device = DeviceTraffic.Rest(host, user);

        using var first = JsonDocument.Parse(await device.GetStringAsync(new Uri($"/v1/users/{user}/highlights?pageSize=3", UriKind.Relative), TestTimeout.Token));
        var cursor = first.RootElement.GetProperty("nextCursor").GetString()!;
        using var second = JsonDocument.Parse(await device.GetStringAsync(
            new Uri($"/v1/users/{user}/highlights?pageSize=3&cursor={Uri.EscapeDataString(cursor)}", UriKind.Relative), TestTimeout.Token));
        var grpcPage = await DeviceTraffic.GrpcListUserHighlightsAsync(host, user, cursor);
        using var forged = DeviceTraffic.Rest(host, null).WithToken(token + "x");
        Assert.Equal(HttpStatusCode.Unauthorized, await DeviceTraffic.GetAsync(forged, $"/v1/users/{user}"));

        var texts = first.RootElement.GetProperty("items").EnumerateArray()
            .Concat(second.RootElement.GetProperty("items").EnumerateArray())
            .Select(i => i.GetProperty("text").GetString()!)
            .Concat(grpcPage.Items.Select(i => i.Text))
            .ToList();
        Assert.NotEmpty(texts);
        var logs = host.Logs.RenderAll();

        // The framework's own request logs were on: the test saw what an operator turning everything up would see.
        Assert.Contains(host.Logs.Events, e => e.Properties.ContainsKey("QueryString"));
        Assert.DoesNotContain(token, logs, StringComparison.Ordinal);
        Assert.DoesNotContain(token.Split('.')[2], logs, StringComparison.Ordinal);
        Assert.DoesNotContain(cursor, logs, StringComparison.Ordinal);
        Assert.DoesNotContain(Uri.EscapeDataString(cursor), logs, StringComparison.Ordinal);
        Assert.All(texts, text => Assert.DoesNotContain(text, logs, StringComparison.Ordinal));
    }

    [Fact]
    public void ACredentialInsideAnyLoggedTextIsCutOut()
    {
        var token = TestTokens.For(12);
        var logEvent = new LogEvent(
            DateTimeOffset.UtcNow, LogEventLevel.Information, null, new MessageTemplate("{Header} {Path}", []),
            [new LogEventProperty("Header", new ScalarValue($"Bearer {token}")), new LogEventProperty("Path", new ScalarValue($"/x/{token}/y"))]);

        new SensitiveDataRedactor().Enrich(logEvent, null!);

        Assert.Equal($"\"{SensitiveDataRedactor.Redacted}\"", logEvent.Properties["Header"].ToString());
        Assert.Equal($"\"/x/{SensitiveDataRedactor.Redacted}/y\"", logEvent.Properties["Path"].ToString());
    }

    [Fact]
    public async Task EveryProductionJsonLineCarriesTheTraceAndSpanIdsOfItsRequest()
    {
        using var host = new SyncGrpcTestHost();
        using var anonymous = DeviceTraffic.Rest(host, null);

        Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(anonymous, "/healthz/live"));

        var line = Assert.Single(host.Logs.RequestLines);
        using var writer = new StringWriter();
        SerilogSetup.ProductionFormatter().Format(line, writer);
        var json = writer.ToString();
        Assert.Single(json.Split('\n', StringSplitOptions.RemoveEmptyEntries));
        using var parsed = JsonDocument.Parse(json);
        Assert.Equal(line.TraceId!.Value.ToHexString(), parsed.RootElement.GetProperty("TraceId").GetString());
        Assert.Equal(line.SpanId!.Value.ToHexString(), parsed.RootElement.GetProperty("SpanId").GetString());
        Assert.Contains("/healthz/live responded 200", parsed.RootElement.GetProperty("RenderedMessage").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ARequestLineNamesTheRouteTemplateAndNeverTheRawPath()
    {
        using var host = new SyncGrpcTestHost(SharedDemoDatabase.ConnectionString);
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        using var device = DeviceTraffic.Rest(host, user);

        Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(device, $"/v1/users/{user}"));

        var line = Assert.Single(host.Logs.RequestLines, l => l.RenderMessage().Contains("/v1/users/{userNo} responded 200", StringComparison.Ordinal));
        using var writer = new StringWriter();
        SerilogSetup.ProductionFormatter().Format(line, writer);
        Assert.DoesNotContain($"/v1/users/{user}", writer.ToString(), StringComparison.Ordinal);
        Assert.Equal("\"/v1/users/{userNo}\"", line.Properties["Route"].ToString());
        Assert.All(["RequestPath", "RequestId", "ConnectionId"], scope => Assert.False(line.Properties.ContainsKey(scope), $"the request scope's {scope} reached the line"));
    }

    [Fact]
    public async Task LogLevelsFollowAConfigurationReloadWithoutARestart()
    {
        using var host = new SyncGrpcTestHost();
        using var anonymous = DeviceTraffic.Rest(host, null);
        var configuration = (IConfigurationRoot)host.Services.GetRequiredService<IConfiguration>();

        configuration["Serilog:MinimumLevel:Default"] = "Warning";
        configuration.Reload();
        Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(anonymous, "/healthz/live"));
        Assert.Empty(host.Logs.RequestLines);

        configuration["Serilog:MinimumLevel:Default"] = "Information";
        configuration.Reload();
        Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(anonymous, "/healthz/live"));
        Assert.Single(host.Logs.RequestLines);
    }
}
