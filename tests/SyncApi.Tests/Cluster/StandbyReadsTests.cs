using System.Diagnostics;
using System.Net.Http.Json;
using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage;
using Kobo.Sync.Storage.Stores;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DevicePushes;

namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// Device reads from standbys that still see the device's own writes, on the local 3-node cluster with
/// both standbys' replay paused (<c>pg_wal_replay_pause()</c>), so that anything written after the pause
/// is on the primary alone. Three instances of the service on the cluster's strings:
/// A (live pull on), B (live pull off, so it tells no one of its writes) and C (live pull off, a standby
/// may lag at most 100 ms). A device's push and reading state through A come back in its next pull and
/// read through A; a pull through A of a user whose change was written through B does not see it (the
/// paused standby answered: a pull with no write of its own that A knows of is a standby's), while the
/// writing device's pull through B does, and so does its pull through A with the token its push through B
/// answered (the push as its last write); C, for which the paused standby lags too much, reads the primary.
/// Once replay resumes, A's pull brings the change.
/// </summary>
[Collection(ClusterCollection.Name)]
public sealed class StandbyReadsTests(LocalCluster cluster, ITestOutputHelper output) : IClassFixture<LocalCluster>
{
    private const long Reader = 7_400_001;
    private const long Sharer = 7_400_002;
    private const long Book = 7;
    private static readonly TimeSpan ReplayWait = TimeSpan.FromSeconds(30);

    [Fact]
    public async Task ADeviceSeesItsOwnWritesWhileReadsWithoutOneAreAnsweredByAPausedStandby()
    {
        var restA = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        var restB = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        var restC = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        // A reads standbys only (not prefer-standby, which takes the primary when a standby is slow to connect
        // on a busy machine): what A's standby reads return is then the paused standbys' alone.
        // What is checked is where reads are answered, not how fast: a slow answer on a busy machine is no 503.
        var budget = SyncApiFactory.FunctionalRequestBudgetMs;
        using var a = cluster.StartService(restA, new Dictionary<string, string?>
        {
            ["Storage:StandbyMaxLagMs"] = "600000",
            ["Storage:ReadConnectionString"] = cluster.ReadConnectionString.Replace("prefer-standby", "standby", StringComparison.Ordinal),
            ["Resilience:RequestBudgetMs"] = budget,
        });
        using var b = cluster.StartService(restB, new Dictionary<string, string?>
        {
            ["Sync:LivePull"] = "false", ["Storage:StandbyMaxLagMs"] = "600000", ["Resilience:RequestBudgetMs"] = budget,
        });
        using var c = cluster.StartService(restC, new Dictionary<string, string?>
        {
            ["Sync:LivePull"] = "false", ["Storage:StandbyMaxLagMs"] = "100", ["Resilience:RequestBudgetMs"] = budget,
        });

        await using var primary = StorageDataSource.Create(cluster.ConnectionString);
        await AddUserAsync(primary, Reader);
        await AddUserAsync(primary, Sharer);
        await using (var book = primary.CreateCommand($"INSERT INTO books (book_no, title, author) VALUES ({Book}, 'A book', 'An author') ON CONFLICT DO NOTHING"))
        {
            await book.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        Assert.True(await new PostgresSyncStore(primary).SetOwnershipAsync(new UserNo(Reader), new BookNo(Book), owned: true, TestTimeout.Token));

        using var readerOnA = Device(restA, Reader, "reader-1");
        using var sharerOnA = Device(restA, Sharer, "sharer-1");
        using var sharerOnB = Device(restB, Sharer, "sharer-2");
        using var sharerOnC = Device(restC, Sharer, "sharer-3");
        var readerToken = (await PullAsync(readerOnA, Reader, null)).Token;
        var sharerToken = (await PullAsync(sharerOnA, Sharer, null)).Token;

        var standbys = await StandbysAsync();
        Assert.Equal(2, standbys.Count);
        await WaitReplayedAsync(primary, standbys);

        // Patroni resumes a standby's paused replay at its next loop (2 s here) unless it is in maintenance mode.
        await cluster.MaintenanceAsync(on: true);
        await SetReplayAsync(standbys, pause: true);
        try
        {
            // A device's own push and reading state, through the instance that wrote them.
            Assert.True((await PushHighlightAsync(readerOnA, Reader, "own", "reader-1")).Acknowledged);
            var ownPull = await PullAsync(readerOnA, Reader, readerToken);
            Assert.Contains(HighlightId(Reader, "own"), ownPull.Ids);
            await readerOnA.PutStateAsync(Reader, Book, new { position = new { percent = 42.5, modifiedAt = DateTimeOffset.UtcNow } });
            var state = await readerOnA.GetStateAsync(Reader, Book);
            Assert.Equal("42.5", state.GetProperty("position").GetProperty("percent").GetRawText());

            // Written through B, which tells no one: A's pull of that user has no write of its own to see,
            // and the paused standby, which lacks the change, answers it.
            Assert.True((await PushHighlightAsync(sharerOnB, Sharer, "shared", "sharer-2")).Acknowledged);
            var fromStandby = await PullAsync(sharerOnA, Sharer, sharerToken);
            if (fromStandby.Ids.Contains(HighlightId(Sharer, "shared")))
            {
                output.WriteLine(await WhereReadsWentAsync(restA, standbys));
            }

            Assert.DoesNotContain(HighlightId(Sharer, "shared"), fromStandby.Ids);
            Assert.Equal(sharerToken, fromStandby.Token); // nothing new, as the standby saw it
            Assert.Contains(HighlightId(Sharer, "shared"), (await PullAsync(sharerOnB, Sharer, sharerToken)).Ids);

            // A device that sends its token with its push through B gets it back with the push in it: A,
            // which was told of nothing, then reads the primary for it.
            var carried = await PushWithTokenAsync(sharerOnB, Sharer, "carried", sharerToken);
            Assert.Contains(HighlightId(Sharer, "carried"), (await PullAsync(sharerOnA, Sharer, carried)).Ids);

            // C allows 100 ms of lag: the paused standby, with WAL waiting to be replayed, lags more by now.
            await Task.Delay(TimeSpan.FromMilliseconds(500), TestTimeout.Token);
            Assert.Contains(HighlightId(Sharer, "shared"), (await PullAsync(sharerOnC, Sharer, sharerToken)).Ids);
        }
        finally
        {
            await SetReplayAsync(standbys, pause: false);
            await cluster.MaintenanceAsync(on: false);
        }

        var clock = Stopwatch.StartNew();
        while (!(await PullAsync(sharerOnA, Sharer, sharerToken)).Ids.Contains(HighlightId(Sharer, "shared")))
        {
            Assert.True(clock.Elapsed < ReplayWait, $"A's pull did not bring the change written through B within {ReplayWait.TotalSeconds} s of the standbys' replay resuming");
            await Task.Delay(TimeSpan.FromMilliseconds(100), TestTimeout.Token);
        }

        output.WriteLine($"A's pull brought B's change {clock.ElapsedMilliseconds} ms after replay resumed");
    }

    private static HttpClient Device(Uri rest, long user, string device) =>
        new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(20) }.WithToken(TestTokens.For(user, device));

    private static async Task<(List<string> Ids, string Token)> PullAsync(HttpClient device, long user, string? since)
    {
        var path = $"/v1/users/{user}/changes?pageSize=1000" + (since is null ? string.Empty : "&since=" + Uri.EscapeDataString(since));
        var page = await device.GetFromJsonAsync<JsonElement>(new Uri(path, UriKind.Relative), TestTimeout.Token);
        Assert.False(page.GetProperty("hasMore").GetBoolean());
        var ids = page.GetProperty("changes").EnumerateArray()
            .Where(change => change.GetProperty("kind").GetString() == "highlight")
            .Select(change => change.GetProperty("id").GetString()!)
            .ToList();
        return (ids, page.GetProperty("syncToken").GetString()!);
    }

    /// <summary>A push of one new highlight with the device's sync token (<c>?since=</c>); the answer's token.</summary>
    private static async Task<string> PushWithTokenAsync(HttpClient device, long user, string key, string since)
    {
        var body = new
        {
            changes = new[] { new { op = "upsert", bookNo = "7", key, text = "read after its write", start = 0, length = 20, color = "blue", modifiedAt = DateTimeOffset.UtcNow } },
        };
        using var response = await device.PostAsJsonAsync(
            new Uri($"/v1/users/{user}/changes?since={Uri.EscapeDataString(since)}", UriKind.Relative), body, TestTimeout.Token);
        var answer = await response.Content.ReadFromJsonAsync<JsonElement>(TestTimeout.Token);
        Assert.True(response.IsSuccessStatusCode, answer.ToString());
        Assert.Equal("applied", answer.GetProperty("results")[0].GetProperty("status").GetString());
        return answer.GetProperty("syncToken").GetString()!;
    }

    /// <summary>The superuser's strings to the nodes in recovery.</summary>
    private async Task<List<string>> StandbysAsync()
    {
        var standbys = new List<string>();
        for (var node = 0; node < 3; node++)
        {
            var connectionString = cluster.SuperuserConnectionString(node);
            await using var connection = new NpgsqlConnection(connectionString);
            await connection.OpenAsync(TestTimeout.Token);
            await using var command = new NpgsqlCommand("SELECT pg_is_in_recovery()", connection);
            if ((bool)(await command.ExecuteScalarAsync(TestTimeout.Token))!)
            {
                standbys.Add(connectionString);
            }
        }

        return standbys;
    }

    /// <summary>Waits until every standby has replayed what the primary has written so far.</summary>
    private static async Task WaitReplayedAsync(NpgsqlDataSource primary, List<string> standbys)
    {
        await using var written = primary.CreateCommand("SELECT pg_current_wal_lsn()::text");
        var lsn = (string)(await written.ExecuteScalarAsync(TestTimeout.Token))!;
        foreach (var standby in standbys)
        {
            var clock = Stopwatch.StartNew();
            await using var connection = new NpgsqlConnection(standby);
            await connection.OpenAsync(TestTimeout.Token);
            // Replayed that far, and streaming: a standby whose WAL receiver is down (still starting after another
            // class's failover, say) counts as lagging, and the service would rightly read the primary instead.
            await using var replayed = new NpgsqlCommand(
                "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AND EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming')",
                connection) { Parameters = { new() { Value = lsn } } };
            while (!(bool)(await replayed.ExecuteScalarAsync(TestTimeout.Token))!)
            {
                Assert.True(clock.Elapsed < ReplayWait, $"a standby did not replay {lsn} and stream within {ReplayWait.TotalSeconds} s");
                await Task.Delay(TimeSpan.FromMilliseconds(50), TestTimeout.Token);
            }
        }
    }

    /// <summary>What the instance at <paramref name="rest"/> counted of its standby reads, and each standby's replay.</summary>
    private static async Task<string> WhereReadsWentAsync(Uri rest, List<string> standbys)
    {
        using var http = new HttpClient { BaseAddress = rest, Timeout = TimeSpan.FromSeconds(10) };
        var metrics = await http.GetStringAsync(new Uri("/metrics", UriKind.Relative), TestTimeout.Token);
        var lines = metrics.Split('\n').Where(line => line.StartsWith("kobo_sync_standby_reads", StringComparison.Ordinal)).ToList();
        foreach (var standby in standbys)
        {
            await using var connection = new NpgsqlConnection(standby);
            await connection.OpenAsync(TestTimeout.Token);
            await using var command = new NpgsqlCommand(
                """
                SELECT format('paused %s, received %s, replayed %s, last replayed commit %s, now %s, receiver %s',
                    pg_is_wal_replay_paused(), pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn(), pg_last_xact_replay_timestamp(), now(),
                    (SELECT status FROM pg_stat_wal_receiver))
                """, connection);
            lines.Add((string)(await command.ExecuteScalarAsync(TestTimeout.Token))!);
        }

        return string.Join(Environment.NewLine, lines);
    }

    private static async Task SetReplayAsync(List<string> standbys, bool pause)
    {
        foreach (var standby in standbys)
        {
            await using var connection = new NpgsqlConnection(standby);
            await connection.OpenAsync(CancellationToken.None);
            await using var command = new NpgsqlCommand(pause ? "SELECT pg_wal_replay_pause()" : "SELECT pg_wal_replay_resume()", connection);
            await command.ExecuteNonQueryAsync(CancellationToken.None);
        }
    }
}
