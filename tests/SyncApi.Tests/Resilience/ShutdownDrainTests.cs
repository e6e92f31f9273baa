using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Stopping the service (SIGTERM in production) lets the requests in flight finish: a request that
/// is waiting on a slow database when the stop begins still gets its answer.
/// </summary>
public sealed class ShutdownDrainTests(PostgresDatabase database) : IClassFixture<PostgresDatabase>
{
    [Fact]
    public async Task ARequestInFlightWhenTheServiceStopsIsAnsweredBeforeItExits()
    {
        await using var proxy = FaultProxy.Start("127.0.0.1", new Npgsql.NpgsqlConnectionStringBuilder(database.ConnectionString).Port);
        var connection = new Npgsql.NpgsqlConnectionStringBuilder(database.ConnectionString) { Host = "127.0.0.1", Port = proxy.Port };
        var rest = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        var factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = rest.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}",
            ["Storage:ConnectionString"] = connection.ConnectionString,
            ["Resilience:RequestBudgetMs"] = "10000",
        });
        factory.UseKestrel();
        factory.StartServer();
        using var http = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(20) };
        Assert.Equal(404, (await RestGetUserAsync(http, 12)).Status);

        proxy.Latency = TimeSpan.FromMilliseconds(1500);
        var inFlight = RestGetUserAsync(http, 12);
        await Task.Delay(300);
        var stopping = Task.Run(factory.Dispose);

        var answer = await inFlight;
        await stopping;

        Assert.Equal(404, answer.Status); // the database's answer, not a reset connection or a 503
        await Assert.ThrowsAnyAsync<HttpRequestException>(() => http.GetAsync("/healthz/live"));
    }
}
