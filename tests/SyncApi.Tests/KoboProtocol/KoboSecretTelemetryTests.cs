using System.Diagnostics;
using System.Net;
using System.Text;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using OpenTelemetry;
using OpenTelemetry.Exporter;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>A Kobo link's secret travels in every path a device calls, and reaches no log line and no span.</summary>
public sealed class KoboSecretTelemetryTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    [Fact]
    public async Task TheSecretReachesNoLogLineAndNoSpanEvenAtTheMostVerboseLevel()
    {
        var spans = new List<Activity>();
        using var host = new SyncGrpcTestHost(
            db.ConnectionString,
            services => services.AddSpanProcessor(new SimpleActivityExportProcessor(new InMemoryExporter<Activity>(spans))),
            new Dictionary<string, string?>
            {
                ["Logging:LogLevel:Default"] = "Trace",
                ["Serilog:MinimumLevel:Default"] = "Verbose",
                ["Serilog:MinimumLevel:Override:Microsoft.AspNetCore"] = "Verbose",
                ["Serilog:MinimumLevel:Override:Microsoft.Hosting.Lifetime"] = "Verbose",
                ["Serilog:MinimumLevel:Override:Kobo.Sync.SyncApi.Infrastructure.Auth.DeviceTokenHandler"] = "Verbose",
            });
        var user = db.NewUser();
        using var phone = new HttpClient { BaseAddress = host.RestAddress }.WithToken(TestTokens.For(user, "phone"));
        using var kobo = new HttpClient { BaseAddress = host.RestAddress };

        var endpoint = await phone.LinkAsync(user);
        var secret = KoboLinks.SecretOf(endpoint);
        var root = KoboLinks.RootOf(endpoint);
        using (var init = await kobo.GetAsync(new Uri(root + "/v1/initialization", UriKind.Relative), TestTimeout.Token))
        {
            Assert.Equal(HttpStatusCode.OK, init.StatusCode);
        }

        using (var auth = await kobo.PostAsync(
            new Uri(root + "/v1/auth/device", UriKind.Relative), new StringContent("{\"UserKey\":\"k\"}", Encoding.UTF8, "application/json"), TestTimeout.Token))
        {
            Assert.Equal(HttpStatusCode.OK, auth.StatusCode);
        }

        using (var unknown = await kobo.GetAsync(new Uri(root + "/v1/no/such/call?x=1", UriKind.Relative), TestTimeout.Token))
        {
            Assert.Equal(HttpStatusCode.OK, unknown.StatusCode);
        }

        // A secret one character off: refused, and not logged either.
        var wrong = secret[..^1] + (secret[^1] == 'A' ? 'B' : 'A');
        using (var refused = await kobo.GetAsync(new Uri($"/kobo/{wrong}/v1/initialization", UriKind.Relative), TestTimeout.Token))
        {
            Assert.Equal(HttpStatusCode.Unauthorized, refused.StatusCode);
        }

        // A request line Kestrel cannot parse, with the secret in it: Kestrel logs the line it refused.
        using (var socket = new System.Net.Sockets.TcpClient())
        {
            await socket.ConnectAsync(host.RestAddress.Host, host.RestAddress.Port, TestTimeout.Token);
            var stream = socket.GetStream();
            await stream.WriteAsync(Encoding.ASCII.GetBytes($"GET {root}/v1/init ialization HTTP/1.1\r\nHost: x\r\n\r\n"), TestTimeout.Token);
            var answer = new byte[512];
            Assert.Contains("400", Encoding.ASCII.GetString(answer, 0, await stream.ReadAsync(answer, TestTimeout.Token)), StringComparison.Ordinal);
        }

        host.Dispose(); // flushes the spans and the log queue
        var logs = host.Logs.RenderAll();
        Assert.Contains("/kobo/{secret}/v1/initialization responded 200", logs, StringComparison.Ordinal);
        Assert.Contains(host.Logs.Events, e => e.Properties.ContainsKey("Path")); // the framework's raw-path lines were on
        // Kestrel logged the line it refused, with the exception that quotes it: the secret cut out.
        Assert.Contains(host.Logs.Events, e => e.Exception?.ToString().Contains("GET /kobo/[redacted]/v1/init ialization", StringComparison.Ordinal) == true);
        Assert.DoesNotContain(secret, logs, StringComparison.Ordinal);
        Assert.DoesNotContain(wrong, logs, StringComparison.Ordinal);
        Activity[] finished;
        lock (spans)
        {
            // The test's own HttpClient calls are traced in this process too (url.full): not the service's.
            finished = [.. spans.Where(s => s.Source.Name != "System.Net.Http")];
        }

        Assert.Contains(finished, s => s.GetTagItem("http.route") as string == "/kobo/{secret}/v1/initialization");
        foreach (var span in finished)
        {
            var texts = span.TagObjects.Select(t => t.Value?.ToString() ?? string.Empty).Append(span.DisplayName);
            Assert.All(texts, text => Assert.DoesNotContain(secret, text, StringComparison.Ordinal));
            Assert.All(texts, text => Assert.DoesNotContain(wrong, text, StringComparison.Ordinal));
        }
    }
}
