using System.Collections.Concurrent;
using System.Net;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using Microsoft.Extensions.DependencyInjection;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

/// <summary>OTLP export follows the standard OTEL_EXPORTER_OTLP_ENDPOINT variable: off and silent without it, all three signals with it.</summary>
[Collection(TelemetryCollection.Name)]
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
    }

    [Fact]
    public async Task WithTheEndpointVariableTracesMetricsAndLogsLeaveByOtlp()
    {
        using var receiver = new HttpListener();
        var port = LoopbackPorts.Free();
        receiver.Prefixes.Add($"http://127.0.0.1:{port}/");
        receiver.Start();
        var received = new ConcurrentBag<string>();
        var receiving = Task.Run(async () =>
        {
            while (receiver.IsListening)
            {
                HttpListenerContext context;
                try
                {
                    context = await receiver.GetContextAsync();
                }
                catch (Exception e) when (e is HttpListenerException or ObjectDisposedException)
                {
                    return;
                }

                received.Add(context.Request.Url!.AbsolutePath);
                context.Response.StatusCode = 200;
                context.Response.Close();
            }
        });

        var variables = new Dictionary<string, string>
        {
            [TelemetryExtensions.OtlpEndpointKey] = $"http://127.0.0.1:{port}",
            ["OTEL_EXPORTER_OTLP_PROTOCOL"] = "http/protobuf",
            ["OTEL_BSP_SCHEDULE_DELAY"] = "100",
            ["OTEL_BLRP_SCHEDULE_DELAY"] = "100",
            ["OTEL_METRIC_EXPORT_INTERVAL"] = "200",
        };
        try
        {
            foreach (var (name, value) in variables)
            {
                Environment.SetEnvironmentVariable(name, value);
            }

            var user = (await SharedDemoDatabase.GetAsync()).HeavyUser.Value;
            using (var host = new SyncGrpcTestHost())
            {
                using var device = DeviceTraffic.Rest(host, user);
                Assert.Equal(HttpStatusCode.OK, await DeviceTraffic.GetAsync(device, $"/v1/users/{user}"));
            }

            // Shutting the service down flushes every exporter.
            var deadline = DateTime.UtcNow.AddSeconds(10);
            while (DateTime.UtcNow < deadline && !new[] { "/v1/traces", "/v1/metrics", "/v1/logs" }.All(received.Contains))
            {
                await Task.Delay(100);
            }

            Assert.Contains("/v1/traces", received);
            Assert.Contains("/v1/metrics", received);
            Assert.Contains("/v1/logs", received);
        }
        finally
        {
            foreach (var name in variables.Keys)
            {
                Environment.SetEnvironmentVariable(name, null);
            }

            receiver.Stop();
            await receiving;
        }
    }
}
