using System.Net;
using System.Text;
using System.Text.Json;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using Microsoft.Extensions.DependencyInjection;
using OpenTelemetry.Trace;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

/// <summary>OTLP export follows the standard OTEL_EXPORTER_OTLP_ENDPOINT variable: off and silent without it, all three signals with it.</summary>
[Collection(TelemetryCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class OtlpExportTests
{
    [Fact]
    public async Task WithoutTheEndpointVariableNothingIsExportedAndNothingComplains()
    {
        Assert.Null(Environment.GetEnvironmentVariable(TelemetryExtensions.OtlpEndpointKey));
        using var host = new SyncGrpcTestHost();
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        using var device = DeviceTraffic.Rest(host, user);

        Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(device, $"/v1/users/{user}"));

        Assert.DoesNotContain(host.Services.GetServices<Serilog.Core.ILogEventSink>(), s => s.GetType().Name.Contains("OpenTelemetry", StringComparison.Ordinal));
        Assert.DoesNotContain(host.Logs.Events, e => e.Level >= LogEventLevel.Warning);
        // No tracer was built: nothing takes spans, so no request records one.
        Assert.Null(host.Services.GetService<TracerProvider>());
    }

    [Fact]
    public async Task WithTheEndpointVariableTracesMetricsAndLogsLeaveByOtlp()
    {
        await using var receiver = new OtlpReceiver();
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        using (var host = new SyncGrpcTestHost())
        {
            using var device = DeviceTraffic.Rest(host, user);
            Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(device, $"/v1/users/{user}"));
        }

        // Shutting the service down flushes every exporter.
        await receiver.WaitForAsync("/v1/traces", "/v1/metrics", "/v1/logs");

        Assert.Contains("/v1/traces", receiver.Paths);
        Assert.Contains("/v1/metrics", receiver.Paths);
        Assert.Contains("/v1/logs", receiver.Paths);
    }

    [Theory]
    [InlineData("OTEL_SERVICE_NAME", "sync-canary-eu1", "sync-canary-eu1")]
    [InlineData("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=canary,service.name=sync-canary-us2", "sync-canary-us2")]
    public async Task TheStandardVariablesNameTheServiceInItsTelemetry(string variable, string value, string expected)
    {
        await using var receiver = new OtlpReceiver();
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        Environment.SetEnvironmentVariable(variable, value);
        try
        {
            using var host = new SyncGrpcTestHost();
            using var device = DeviceTraffic.Rest(host, user);
            Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(device, $"/v1/users/{user}"));
            await receiver.WaitForTextAsync("/v1/traces", expected);
        }
        finally
        {
            Environment.SetEnvironmentVariable(variable, null);
        }

        var traces = string.Concat(receiver.Bodies("/v1/traces").Select(Encoding.UTF8.GetString));
        Assert.Contains(expected, traces, StringComparison.Ordinal);
        Assert.Equal("kobo-sync", TelemetryExtensions.ResourceServiceName()); // and the default again once they are gone
    }

    [Fact]
    public async Task LogsLeavingByOtlpAreTheRedactedSerilogEventsEvenAtTheMostVerboseLevel()
    {
        await using var receiver = new OtlpReceiver();
        var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
        var token = TestTokens.For(user);
        string cursor;
        using (var host = new SyncGrpcTestHost(SharedDemoDatabase.ConnectionString, settings: new Dictionary<string, string?>
        {
            ["Serilog:MinimumLevel:Default"] = "Verbose",
            ["Serilog:MinimumLevel:Override:Microsoft.AspNetCore"] = "Verbose",
            ["Logging:LogLevel:Default"] = "Trace",
        }))
        {
            using var device = DeviceTraffic.Rest(host, user);
            using var first = JsonDocument.Parse(await device.GetStringAsync(new Uri($"/v1/users/{user}/highlights?pageSize=3", UriKind.Relative), TestTimeout.Token));
            cursor = first.RootElement.GetProperty("nextCursor").GetString()!;
            Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(device, $"/v1/users/{user}/highlights?pageSize=3&cursor={Uri.EscapeDataString(cursor)}"));

            // Exported while the service runs (every 100 ms here): a flush at shutdown, with every
            // verbose event of the run queued, can outlast its time limit on a loaded machine.
            await receiver.WaitForTextAsync("/v1/logs", "responded {StatusCode}");
        }

        var logs = string.Concat(receiver.Bodies("/v1/logs").Select(Encoding.UTF8.GetString));

        // The request line came through Serilog (its template, its redaction); nothing else wrote there.
        Assert.Contains("responded {StatusCode}", logs, StringComparison.Ordinal);
        Assert.DoesNotContain(token.Split('.')[2], logs, StringComparison.Ordinal);
        Assert.DoesNotContain(cursor, logs, StringComparison.Ordinal);
        Assert.DoesNotContain(Uri.EscapeDataString(cursor), logs, StringComparison.Ordinal);
    }
}
