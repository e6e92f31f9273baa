using System.Diagnostics;
using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Npgsql;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DevicePushes;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// A device pushing highlights at a steady rate while the database is stopped and started again:
/// while it is down the pushes are refused with 503 and Retry-After, afterwards they succeed with no
/// service restart, and every push the service acknowledged is stored.
/// </summary>
public sealed class PushDuringRestartTests(ControllablePostgres postgres, ITestOutputHelper output) : IClassFixture<ControllablePostgres>
{
    private const long User = 4242;

    [Fact]
    public async Task EveryAcknowledgedPushIsStoredWhenTheDatabaseRestartsMidStream()
    {
        var rest = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        using var factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = rest.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}",
            ["Storage:ConnectionString"] = postgres.ConnectionString,
            ["Resilience:BreakerBreakMs"] = "500",
        });
        factory.UseKestrel();
        factory.StartServer();
        using var http = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(10) };
        Assert.Equal(404, (await DeviceRequests.RestGetUserAsync(http, User)).Status); // migrated
        await using (var db = StorageDataSource.Create(postgres.ConnectionString))
        {
            await AddUserAsync(db, User);
        }

        var clock = Stopwatch.StartNew();
        using var stop = new CancellationTokenSource();
        var pushing = PushSteadilyAsync(http, clock, stop.Token);
        await Task.Delay(TimeSpan.FromSeconds(1));
        var stoppedAt = clock.Elapsed;
        await postgres.StopAsync();
        await Task.Delay(TimeSpan.FromSeconds(1));
        await postgres.StartAsync();
        var startedAt = clock.Elapsed;
        await Task.Delay(TimeSpan.FromSeconds(3));
        await stop.CancelAsync();
        var pushes = await pushing;

        var acknowledged = pushes.Where(p => p.Push.Acknowledged).ToList();
        var refused = pushes.Where(p => !p.Push.Acknowledged).ToList();
        await using var source = StorageDataSource.Create(postgres.ConnectionString);
        await using var count = source.CreateCommand("SELECT count(*) FROM highlights WHERE id = ANY($1)");
        count.Parameters.Add(new NpgsqlParameter<string[]> { TypedValue = acknowledged.Select(p => HighlightId(User, p.Push.Key)).ToArray() });
        var stored = (long)(await count.ExecuteScalarAsync())!;
        output.WriteLine($"database down from {stoppedAt.TotalSeconds:F1} s to {startedAt.TotalSeconds:F1} s");
        output.WriteLine($"pushes: {pushes.Count}, acknowledged {acknowledged.Count}, refused {refused.Count} ({string.Join(",", refused.Select(p => p.Push.Status).Distinct())}); slowest {pushes.Max(p => p.Push.Elapsed.TotalMilliseconds):F0} ms");
        output.WriteLine($"acknowledged pushes stored: {stored}/{acknowledged.Count}");

        Assert.Equal(acknowledged.Count, stored);
        Assert.NotEmpty(refused); // the restart was felt
        Assert.All(refused, p =>
        {
            Assert.Equal(503, p.Push.Status);
            Assert.NotNull(p.Push.RetryAfter);
        });
        Assert.All(pushes, p => Assert.True(p.Push.Elapsed < TimeSpan.FromSeconds(2), $"a push took {p.Push.Elapsed.TotalMilliseconds:F0} ms"));
        Assert.All(pushes.TakeLast(10), p => Assert.True(p.Push.Acknowledged, $"push at {p.Start.TotalSeconds:F1} s: {p.Push.Status}"));
        Assert.Contains(acknowledged, p => p.Start < stoppedAt);
    }

    private static async Task<List<(TimeSpan Start, Push Push)>> PushSteadilyAsync(HttpClient http, Stopwatch clock, CancellationToken stop)
    {
        var log = new List<(TimeSpan, Push)>();
        for (var i = 1; !stop.IsCancellationRequested; i++)
        {
            var start = clock.Elapsed;
            log.Add((start, await PushHighlightAsync(http, User, $"restart-{i}")));
            await Task.Delay(50, CancellationToken.None);
        }

        return log;
    }
}
