using System.Diagnostics;
using System.Net.Http.Headers;
using System.Text.Json;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Npgsql;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Connections to the database cut while a call is on the wire: a read is retried on a new
/// connection within the request's budget and the device gets its answer, not an error; a push is
/// not retried by the service, and the device's replay of it stores nothing twice.
/// </summary>
public sealed class ConnectionDropTests(ConnectionDropTests.RoomyBudget service, ITestOutputHelper output) : IClassFixture<ConnectionDropTests.RoomyBudget>
{
    private const long Pusher = 5151;

    /// <summary>Cuts spread from 30 % to 105 % of one push's time: before, during and after its commit.</summary>
    private const int Cuts = 16;

    public sealed class RoomyBudget : ServiceBehindFaultProxy
    {
        protected override IReadOnlyDictionary<string, string?> ExtraSettings => new Dictionary<string, string?>
        {
            ["Resilience:RequestBudgetMs"] = "8000",
        };
    }

    [Fact]
    public async Task AReadWhoseConnectionIsDroppedMidRequestIsRetriedAndAnswered()
    {
        Assert.Equal(404, (await RestGetUserAsync(service.Rest, ServiceBehindFaultProxy.UnknownUser)).Status);
        service.Proxy.Latency = TimeSpan.FromMilliseconds(200);
        try
        {
            // Cut once a statement (or its answer) is held on the way, so the cut is mid-request however slowly a
            // busy machine gets the request there. What is held may be a background job's instead of the read's;
            // the read is then answered without a cut, and another read is cut, a few times at most.
            for (var tries = 1; ; tries++)
            {
                var read = RestGetUserAsync(service.Rest, ServiceBehindFaultProxy.UnknownUser);
                for (var waited = 0; service.Proxy.HeldChunks == 0; waited++)
                {
                    Assert.True(waited < 2_000, "the read never reached the database within 10 s");
                    await Task.Delay(5, TestTimeout.Token);
                }

                service.Proxy.DropAll();

                Assert.Equal(404, (await read).Status); // answered, cut or not: never an error
                if (service.Factory.Logs.Events.Any(e => e.MessageTemplate.Text.StartsWith("Storage call {Pipeline} retrying", StringComparison.Ordinal)))
                {
                    break;
                }

                Assert.True(tries < 5, "no cut landed in a read in 5 tries: the read was never retried");
            }
        }
        finally
        {
            await service.HealAsync();
        }
    }

    [Fact]
    public async Task APushWhoseConnectionIsDroppedIsNotRetriedByTheServiceAndItsReplayStoresEachHighlightOnce()
    {
        await DevicePushes.AddUserAsync(service.DataSource, Pusher);
        using var device = new HttpClient { BaseAddress = service.RestAddress, Timeout = TimeSpan.FromSeconds(20) };
        device.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(Pusher, "dropping-device"));
        var at = DateTimeOffset.UtcNow;
        service.Proxy.Latency = TimeSpan.FromMilliseconds(50);
        var outcomes = new List<string>();
        try
        {
            // How long one push takes through the slowed proxy; then cut the connections at points
            // spread over that time, so some cuts come before the commit and some after it.
            var times = new List<TimeSpan>();
            for (var i = 0; i < 3; i++)
            {
                var clock = Stopwatch.StartNew();
                Assert.Equal(200, (int)(await device.PushRawAsync(Pusher, SyncCalls.Upsert($"drop-calibration-{i}", "a highlight", at))).StatusCode);
                times.Add(clock.Elapsed);
            }

            var pushTime = times.Min();
            output.WriteLine($"one push through the slowed proxy: {pushTime.TotalMilliseconds:F0} ms");
            for (var i = 0; i < Cuts; i++)
            {
                var key = $"drop-{i}";
                var first = device.PushRawAsync(Pusher, SyncCalls.Upsert(key, "a highlight", at));
                await Task.Delay(pushTime * (0.3 + (0.75 * i / Cuts)));
                service.Proxy.DropAll();
                using var answer = await first;
                var status = (int)answer.StatusCode;
                Assert.True(status is 200 or 503, $"push {key} answered {status}");
                if (status == 503)
                {
                    Assert.NotNull(answer.Headers.RetryAfter);
                }

                // The device replays the same batch until it is acknowledged.
                string result;
                while (true)
                {
                    using var replay = await device.PushRawAsync(Pusher, SyncCalls.Upsert(key, "a highlight", at));
                    if ((int)replay.StatusCode == 200)
                    {
                        result = JsonDocument.Parse(await replay.Content.ReadAsStringAsync()).RootElement.GetProperty("results")[0].GetProperty("status").GetString()!;
                        break;
                    }

                    Assert.Equal(503, (int)replay.StatusCode);
                    await Task.Delay(100);
                }

                outcomes.Add($"{key}: first {status}, replay {result}");
                var (rows, version) = await StoredAsync(DevicePushes.HighlightId(Pusher, key));
                Assert.Equal(1, rows);
                Assert.Equal(1, version);
            }
        }
        finally
        {
            await service.HealAsync();
        }

        output.WriteLine(string.Join(Environment.NewLine, outcomes));
        Assert.Contains(outcomes, o => o.Contains("first 503", StringComparison.Ordinal)); // the cuts were felt
        Assert.DoesNotContain(service.Factory.Logs.Events, e =>
            e.MessageTemplate.Text.StartsWith("Storage call {Pipeline} retrying", StringComparison.Ordinal)
            && e.Properties.TryGetValue("Pipeline", out var pipeline) && pipeline.ToString().Contains(StoragePipelines.Write + "\"", StringComparison.Ordinal));
    }

    private async Task<(long Rows, long Version)> StoredAsync(string id)
    {
        await using var query = service.DataSource.CreateCommand("SELECT count(*), coalesce(max(version), 0)::bigint FROM highlights WHERE id = $1");
        query.Parameters.Add(new NpgsqlParameter<string> { TypedValue = id });
        await using var reader = await query.ExecuteReaderAsync();
        await reader.ReadAsync();
        return (reader.GetInt64(0), reader.GetInt64(1));
    }
}
