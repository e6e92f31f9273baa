using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Microsoft.Extensions.DependencyInjection;
using Polly.CircuitBreaker;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// One user's Kobo e-readers downloading a book's annotations at once, each download overrunning the
/// request budget (the user's highlights stall in the server, <see cref="StalledReadsDatabase"/>), do not
/// open the circuit every device shares: the downloads are weighed as the heavy pulls are, get 503 at
/// their budget, and other devices' pulls right after each burst are served over REST and gRPC.
/// </summary>
public sealed class HeavyKoboDownloadsAndTheCircuitTests(StalledReadsDatabase db, ITestOutputHelper output) : IClassFixture<StalledReadsDatabase>
{
    private const int Rounds = 3;
    private const int Links = 2;
    private const int DownloadsPerLink = 6;
    private const int OtherDevices = 4;

    [Fact]
    public async Task OneUsersAnnotationDownloadsOverrunningTheBudgetLeaveTheCircuitClosedAndOtherDevicesServed()
    {
        using var host = new SyncGrpcTestHost(
            db.ConnectionString,
            settings: new Dictionary<string, string?>
            {
                ["Resilience:RequestBudgetMs"] = "2000",
                ["Resilience:BreakerBreakMs"] = "60000",
            });
        using var rest = new HttpClient { BaseAddress = host.RestAddress };
        var pipelines = host.Services.GetRequiredService<StoragePipelines>();
        var roots = new List<string>();
        for (var i = 0; i < Links; i++)
        {
            using var phone = new HttpClient { BaseAddress = host.RestAddress }.WithToken(TestTokens.For(StalledReadsDatabase.StalledUser, $"phone-{i}"));
            roots.Add(KoboLinks.RootOf(await phone.LinkAsync(StalledReadsDatabase.StalledUser)));
        }

        var book = BookUuid.Format(new BookNo(1));
        var downloads = new List<string>();
        var others = new List<string>();
        for (var round = 0; round < Rounds; round++)
        {
            downloads.AddRange(await Task.WhenAll(roots.SelectMany(root => Enumerable.Range(0, DownloadsPerLink).Select(async _ =>
            {
                using var response = await rest.GetAsync(new Uri($"{root}/api/v3/content/{book}/annotations", UriKind.Relative), TestTimeout.Token);
                return $"REST {(int)response.StatusCode}";
            }))));
            for (var d = 0; d < OtherDevices; d++)
            {
                var user = StalledReadsDatabase.FirstLightUser + d;
                others.Add(await DevicePulls.RestAsync(rest, user, $"device-{d}"));
                others.Add(await DevicePulls.GrpcAsync(host.Client, user, $"device-{d}"));
            }
        }

        output.WriteLine($"downloads: {string.Join(", ", downloads)}");
        output.WriteLine($"others: {string.Join(", ", others)}");
        Assert.All(downloads, a => Assert.True(a is "REST 503", a));
        Assert.All(others, a => Assert.True(a is "REST 200" or "gRPC OK", string.Join(", ", others)));
        Assert.Equal(CircuitState.Closed, pipelines.Breaker.CircuitState);
    }
}
