using System.Diagnostics;
using System.Net;
using System.Security.Cryptography;
using Kobo.Sync.SyncApi.Infrastructure.Logging;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

/// <summary>What refused requests cost the log: one line at most each, and a bounded number a second under a flood.</summary>
public sealed class RefusedRequestLogTests
{
    private static string MadeUpSecret() => Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)).TrimEnd('=').Replace('+', '-').Replace('/', '_');

    [Fact]
    public async Task ARefusedKoboSecretAndARefusedTokenWriteOneLineEach()
    {
        using var host = new SyncGrpcTestHost();
        using var anonymous = DeviceTraffic.Rest(host, null);
        using var forged = DeviceTraffic.Rest(host, null).WithToken(TestTokens.For(12) + "x");
        // The first look-up reads the link key: one refusal before the lines are counted.
        Assert.Equal(HttpStatusCode.Unauthorized, await DeviceTraffic.GetAsync(anonymous, $"/kobo/{MadeUpSecret()}/v1/initialization"));
        host.Logs.Clear();

        Assert.Equal(HttpStatusCode.Unauthorized, await DeviceTraffic.GetAsync(anonymous, $"/kobo/{MadeUpSecret()}/v1/initialization"));
        var kobo = host.Logs.Events;
        host.Logs.Clear();
        Assert.Equal(HttpStatusCode.Unauthorized, await DeviceTraffic.GetAsync(forged, "/v1/users/12"));
        var bearer = host.Logs.Events;

        Assert.Equal(["401"], kobo.Select(e => e.Properties.GetValueOrDefault("StatusCode")?.ToString() ?? e.RenderMessage()));
        Assert.Equal(["401"], bearer.Select(e => e.Properties.GetValueOrDefault("StatusCode")?.ToString() ?? e.RenderMessage()));
    }

    [Fact]
    public async Task AFloodOfRefusalsWritesAtMostItsLinesASecondAndOneSummaryOfTheRest()
    {
        const int PerSecond = 5;
        using var host = new SyncGrpcTestHost(SharedDemoDatabase.ConnectionString, settings: new Dictionary<string, string?>
        {
            ["RequestLog:RefusedLinesPerSecond"] = PerSecond.ToString(System.Globalization.CultureInfo.InvariantCulture),
            // The test sums up by itself; the timer must not do it first.
            ["RequestLog:RefusedSummarySeconds"] = "3600",
            ["Kobo:RefusedSecretsPerAddressBurst"] = "1000000",
        });
        using var anonymous = DeviceTraffic.Rest(host, null);
        using var forged = DeviceTraffic.Rest(host, null).WithToken(TestTokens.For(12) + "x");

        const int Refused = 300;
        var clock = Stopwatch.StartNew();
        for (var i = 0; i < Refused / 2; i++)
        {
            Assert.Equal(HttpStatusCode.Unauthorized, await DeviceTraffic.GetAsync(anonymous, $"/kobo/{MadeUpSecret()}/v1/initialization"));
            Assert.Equal(HttpStatusCode.Unauthorized, await DeviceTraffic.GetAsync(forged, "/v1/users/12"));
        }

        var seconds = (int)Math.Ceiling(clock.Elapsed.TotalSeconds);
        var lines = host.Logs.RequestLines.Count;
        host.Services.GetServices<IHostedService>().OfType<RefusedRequestSummary>().Single().WriteSummary(TimeSpan.FromSeconds(10));

        // Each second that the flood touched wrote at most its allowance (the flood ran one request at a time).
        Assert.InRange(lines, 1, PerSecond * (seconds + 1));
        var summary = Assert.Single(host.Logs.Events, e => e.Properties.ContainsKey("Refused"));
        Assert.Equal(LogEventLevel.Warning, summary.Level);
        Assert.Equal((Refused - lines).ToString(System.Globalization.CultureInfo.InvariantCulture), summary.Properties["Refused"].ToString());
        Assert.Equal((Refused - lines).ToString(System.Globalization.CultureInfo.InvariantCulture), summary.Properties["Unauthorized"].ToString());
    }
}
