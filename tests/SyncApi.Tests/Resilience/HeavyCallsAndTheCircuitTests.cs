using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Microsoft.Extensions.DependencyInjection;
using Polly.CircuitBreaker;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// One device's pulls of a thousand changes that overrun the request budget, in bursts, do not open
/// the circuit every device shares: the heavy pulls get 503 / UNAVAILABLE at their budget, and other
/// devices' default pulls, right after each burst, are served over REST and gRPC. (Those overruns were
/// once counted as the database failing, and the circuit then refused everyone.) The heavy user's
/// range stalls in the server (<see cref="StalledReadsDatabase"/>), so every heavy pull overruns; the
/// circuit is held open a minute once opened, so a wrongly opened one cannot close before the check.
/// </summary>
public sealed class HeavyCallsAndTheCircuitTests(StalledReadsDatabase db, ITestOutputHelper output) : IClassFixture<StalledReadsDatabase>
{
    private const int Rounds = 3;
    private const int HeavyPullsPerBurst = 12;
    private const int OtherDevices = 4;

    [Fact]
    public async Task OneDevicesHeavyPullsOverrunningTheBudgetLeaveTheCircuitClosedAndOtherDevicesServed()
    {
        using var host = new SyncGrpcTestHost(
            db.ConnectionString,
            settings: new Dictionary<string, string?>
            {
                ["Resilience:RequestBudgetMs"] = "2000",
                ["Resilience:BreakerBreakMs"] = "60000",
                // A device's share of requests in progress (8 by default) would refuse part of each burst
                // with 429 before it reached the database; here every heavy pull must reach it.
                ["Admission:PerDeviceConcurrentRequests"] = HeavyPullsPerBurst.ToString(System.Globalization.CultureInfo.InvariantCulture),
            });
        using var rest = new HttpClient { BaseAddress = host.RestAddress };
        var pipelines = host.Services.GetRequiredService<StoragePipelines>();
        var heavy = new List<string>();
        var others = new List<string>();

        for (var round = 0; round < Rounds; round++)
        {
            heavy.AddRange(await Task.WhenAll(Enumerable.Range(0, HeavyPullsPerBurst).Select(i => i % 2 == 0
                ? DevicePulls.RestAsync(rest, StalledReadsDatabase.StalledUser, "heavy-device", pageSize: 1000)
                : DevicePulls.GrpcAsync(host.Client, StalledReadsDatabase.StalledUser, "heavy-device", pageSize: 1000))));
            for (var d = 0; d < OtherDevices; d++)
            {
                var user = StalledReadsDatabase.FirstLightUser + d;
                others.Add(await DevicePulls.RestAsync(rest, user, $"device-{d}"));
                others.Add(await DevicePulls.GrpcAsync(host.Client, user, $"device-{d}"));
            }
        }

        output.WriteLine($"heavy: {string.Join(", ", heavy)}");
        output.WriteLine($"others: {string.Join(", ", others)}");
        Assert.All(heavy, a => Assert.True(a is "REST 503" or "gRPC Unavailable", a));
        Assert.All(others, a => Assert.True(a is "REST 200" or "gRPC OK", string.Join(", ", others)));
        Assert.Equal(CircuitState.Closed, pipelines.Breaker.CircuitState);
    }
}
