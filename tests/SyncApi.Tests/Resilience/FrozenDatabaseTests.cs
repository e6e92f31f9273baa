using System.Net;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// A database server frozen by SIGSTOP (a stalled VM, a stuck disk) holds every connection open and
/// answers nothing: device calls get a prompt 503, readiness turns, and all recovers on SIGCONT.
/// </summary>
public sealed class FrozenDatabaseTests(ControllablePostgres postgres) : IClassFixture<ControllablePostgres>
{
    [Fact]
    public async Task AFrozenDatabaseGets503sWithinTheBudgetAndTheServiceRecoversWhenItThaws()
    {
        var rest = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        using var factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = rest.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}",
            ["Storage:ConnectionString"] = postgres.ConnectionString,
            ["Resilience:RequestBudgetMs"] = "200",
            ["Resilience:BreakerBreakMs"] = "500",
            ["Resilience:ReadinessProbeTimeoutMs"] = "500",
        });
        factory.UseKestrel();
        factory.StartServer();
        using var http = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(20) };
        Assert.Equal(404, (await RestGetUserAsync(http, 12)).Status);

        postgres.Freeze();
        try
        {
            for (var i = 0; i < 10; i++)
            {
                var answer = await RestGetUserAsync(http, 12);
                Assert.Equal(503, answer.Status);
                Assert.NotNull(answer.RetryAfter);
                Assert.True(answer.Elapsed < TimeSpan.FromSeconds(2), $"answered after {answer.Elapsed}");
            }

            Assert.Equal(HttpStatusCode.ServiceUnavailable, (await http.GetAsync("/healthz/ready")).StatusCode);
        }
        finally
        {
            postgres.Thaw();
        }

        var until = DateTime.UtcNow.AddSeconds(5);
        var status = 0;
        while (DateTime.UtcNow < until && status != 404)
        {
            status = (await RestGetUserAsync(http, 12)).Status;
            await Task.Delay(100);
        }

        Assert.Equal(404, status);
        Assert.Equal(HttpStatusCode.OK, (await http.GetAsync("/healthz/ready")).StatusCode);
    }
}
