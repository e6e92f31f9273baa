using Kobo.Sync.DeviceSimulator.Cli;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Scenarios;
using Kobo.Sync.DeviceSimulator.Seeding;
using Kobo.Sync.DeviceSimulator.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Tests.EndToEnd;

/// <summary>
/// The device-sync scenarios through the command line against the real service on a real
/// PostgreSQL seeded by the simulator: seconds, a bounded number of sessions, loopback only.
/// </summary>
[Collection(EndToEndCollection.Name)]
public sealed class DeviceSyncRunTests(SeededServiceFixture service) : IDisposable
{
    private readonly string _results = Path.Combine(Path.GetTempPath(), $"kobo-sim-results-{Guid.NewGuid():N}");
    private readonly string _profile = Path.Combine(Path.GetTempPath(), $"kobo-sim-storm-{Guid.NewGuid():N}.json");

    [Fact]
    public async Task SyncSessionsPullPushAndPullAgainAndTheirHighlightsAreStored()
    {
        var profile = LoadProfile.Load(RepositoryRoot.Profile("sync-session"));
        var sessions = (long)(profile.Scenarios[0].Steps.Sum(s => s.Rate * s.DurationSeconds));
        var batch = profile.Scenarios[0].PushBatch;
        var before = await PushedHighlightsAsync(profile.Seed);

        var exit = await RunAsync(RepositoryRoot.Profile("sync-session"));

        Assert.Equal(0, exit);
        var result = ResultJson.Read(Path.Combine(_results, "result.json"));
        Assert.True(result.Passed, result.Verdict);
        var session = Assert.Single(result.Scenarios, s => s.Name == "sync-session-rest");
        Assert.Equal(sessions, session.Syncs);
        Assert.Equal(0, session.Failed);
        var pull = Assert.Single(result.Scenarios, s => s.Name == "sync-session-rest/pull");
        var push = Assert.Single(result.Scenarios, s => s.Name == "sync-session-rest/push");
        var again = Assert.Single(result.Scenarios, s => s.Name == "sync-session-rest/pull-again");
        Assert.True(pull.Syncs >= sessions);
        Assert.Equal(sessions, push.Syncs);
        Assert.True(again.Syncs >= sessions);
        Assert.All(new[] { pull, push, again }, s => Assert.True(s.Latency.P99 > 0 && s.Failed == 0));
        // Every session's second pull brings back at least its own pushed highlights.
        Assert.True(again.Changes >= sessions * batch, $"{again.Changes} changes pulled again");
        Assert.Equal(sessions * batch, await PushedHighlightsAsync(profile.Seed) - before);
        Assert.Contains("sync-session-rest/push", await File.ReadAllTextAsync(Path.Combine(_results, "summary.md")));
    }

    [Fact]
    public async Task AFirstSyncStormWalksEveryPageOfEveryNewDevicesUser()
    {
        await File.WriteAllTextAsync(_profile, """
            {
              "name": "storm-test", "seed": 3, "devices": 100000, "maxConcurrency": 32, "spacing": "uniform", "warmUpSyncs": 2,
              "device": { "timeoutMs": 2000, "maxRetries": 2, "baseDelayMs": 100, "maxDelayMs": 1000 },
              "thresholds": { "p99Ms": 5000, "failedSyncPercent": 0.1 },
              "scenarios": [ { "read": "first-sync-storm", "transport": "rest", "pageSize": 5, "steps": [ { "rate": 10, "durationSeconds": 2 } ] } ]
            }
            """);
        var users = HeaviestUsersFile.ReadUserCount(service.HeaviestUsers);
        var fleet = new DeviceFleet(100_000, 3, Shard.Whole);
        var sampling = new ReadSampling(fleet, [], users);
        var synced = Enumerable.Range(0, 20).Select(i => sampling.UserOf(fleet.InOrder(i))).ToArray();

        var exit = await RunAsync(_profile);

        Assert.Equal(0, exit);
        var result = ResultJson.Read(Path.Combine(_results, "result.json"));
        Assert.True(result.Passed, result.Verdict);
        var storm = Assert.Single(result.Scenarios, s => s.Name == "first-sync-storm-rest");
        Assert.Equal(20, storm.Syncs);
        Assert.Equal(0, storm.Failed);
        var pages = Assert.Single(result.Scenarios, s => s.Name == "first-sync-storm-rest/page");
        var changes = await ChangesOfAsync(synced);
        Assert.Equal(changes, pages.Changes);
        Assert.True(pages.Syncs >= (changes + 4) / 5, $"{pages.Syncs} pages for {changes} changes");
        Assert.True(pages.Syncs > storm.Syncs, "every device pulled more than one page");
    }

    public void Dispose()
    {
        if (Directory.Exists(_results))
        {
            Directory.Delete(_results, recursive: true);
        }

        File.Delete(_profile);
    }

    private async Task<long> PushedHighlightsAsync(int seed)
    {
        await using var connection = new NpgsqlConnection(service.ConnectionString);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand("SELECT count(*) FROM highlights WHERE id LIKE $1 AND id NOT LIKE '%-w-%'", connection)
        {
            Parameters = { new NpgsqlParameter { Value = $"highlights/users%/sim{seed}-%" } },
        };
        return (long)(await command.ExecuteScalarAsync())!;
    }

    /// <summary>What a full first sync of these users brings: every highlight (tombstones too) and every library entry.</summary>
    private async Task<long> ChangesOfAsync(long[] users)
    {
        await using var connection = new NpgsqlConnection(service.ConnectionString);
        await connection.OpenAsync();
        await using var command = new NpgsqlCommand(
            "SELECT (SELECT count(*) FROM highlights WHERE user_no = ANY($1)) + (SELECT count(*) FROM users_books WHERE user_no = ANY($1))", connection)
        {
            Parameters = { new NpgsqlParameter { Value = users } },
        };
        return (long)(await command.ExecuteScalarAsync())!;
    }

    private Task<int> RunAsync(string profile) =>
        SimulatorCommands.Build().Parse(
        [
            "run", "--profile", profile, "--rest", service.Rest.ToString(),
            "--signing-key", TestTokens.SigningKey, "--heaviest", service.HeaviestUsers, "--out", _results,
        ]).InvokeAsync();
}
