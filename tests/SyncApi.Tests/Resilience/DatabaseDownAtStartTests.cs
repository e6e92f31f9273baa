using System.Net;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// The service and its database do not start in a fixed order: a service whose database is down
/// starts anyway, answers unready and 503, and becomes ready once the database is back, with no restart.
/// </summary>
public sealed class DatabaseDownAtStartTests(ControllablePostgres postgres) : IClassFixture<ControllablePostgres>
{
    [Fact]
    public async Task TheServiceStartsWhileTheDatabaseIsDownAndBecomesReadyWhenItReturns()
    {
        await postgres.StopAsync();
        var rest = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        using var factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = rest.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}",
            ["Storage:ConnectionString"] = postgres.ConnectionString,
            ["Resilience:StartRetryDelayMs"] = "250",
        });
        factory.UseKestrel();
        factory.StartServer();
        using var http = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(20) };

        Assert.Equal(HttpStatusCode.OK, (await http.GetAsync("/healthz/live")).StatusCode);
        Assert.Equal(HttpStatusCode.ServiceUnavailable, (await http.GetAsync("/healthz/ready")).StatusCode);
        var refused = await RestGetUserAsync(http, 12);
        Assert.Equal(503, refused.Status);
        Assert.NotNull(refused.RetryAfter);
        // The pools could not be sized from the server: PostgreSQL's defaults, and a warning that says so.
        Assert.Contains("sized as if max_connections were 100", factory.Logs.RenderAll(), StringComparison.Ordinal);

        await postgres.StartAsync();

        Assert.True(await Readiness.BecomesReadyAsync(http, TimeSpan.FromSeconds(5)), "not ready 5 s after the database came up");
        Assert.Equal(404, (await RestGetUserAsync(http, 12)).Status); // migrated, reachable, empty
    }

    [Fact]
    public async Task ARestartedDatabaseIsUsedAgainWithoutRestartingTheService()
    {
        var rest = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        using var factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = rest.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}",
            ["Storage:ConnectionString"] = postgres.ConnectionString,
        });
        factory.UseKestrel();
        factory.StartServer();
        using var http = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(20) };
        Assert.Equal(404, (await RestGetUserAsync(http, 12)).Status);

        await postgres.StopAsync();
        try
        {
            var refused = await RestGetUserAsync(http, 12);
            Assert.Equal(503, refused.Status);
            Assert.NotNull(refused.RetryAfter);
        }
        finally
        {
            await postgres.StartAsync();
        }

        Assert.True(await Readiness.BecomesReadyAsync(http, TimeSpan.FromSeconds(5)), "not ready 5 s after the database restarted");
        var until = DateTime.UtcNow.AddSeconds(5);
        var status = 0;
        while (DateTime.UtcNow < until && status != 404)
        {
            status = (await RestGetUserAsync(http, 12)).Status;
            await Task.Delay(100);
        }

        Assert.Equal(404, status);
    }
}
