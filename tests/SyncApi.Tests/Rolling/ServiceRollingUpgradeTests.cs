using System.Globalization;
using System.Text.RegularExpressions;
using Kobo.Sync.SyncApi.Tests.Support;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Rolling;

/// <summary>
/// The rolling upgrade of the service (<c>deploy/local-haproxy/rolling.sh roll</c>) under device load:
/// two instances as real processes behind HAProxy on one PostgreSQL, each in turn drained, stopped
/// with SIGTERM, started again and put back, while devices sync and wait for changes through HAProxy.
/// Processes rather than in-process hosts because what is upgraded is the process: SIGTERM, the
/// listener closing, the start of a new one, HAProxy's health check seeing each. The load's size is
/// set by <c>KOBO_ROLLING_DEVICES</c> (syncing devices, default 8) and <c>KOBO_ROLLING_ROUNDS</c>
/// (rolls, default 1), for a longer measured run by hand.
/// </summary>
[Collection(nameof(RollingCollection))]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed partial class ServiceRollingUpgradeTests(HaproxyFront front, ITestOutputHelper output) : IClassFixture<HaproxyFront>
{
    [HaproxyFact]
    public async Task DevicesSyncWithoutAFailureWhileEachInstanceIsDrainedStoppedAndStartedAgain()
    {
        var devices = Setting("KOBO_ROLLING_DEVICES", 8);
        var rounds = Setting("KOBO_ROLLING_ROUNDS", 1);
        var outOfRotation = new List<double>();
        await using var load = new RollingDevices(front.Front, HaproxyFront.Users);
        await load.StartWaitersAsync();
        load.StartSyncs(devices);
        await Task.Delay(TimeSpan.FromSeconds(3));
        for (var round = 0; round < rounds; round++)
        {
            var (seconds, script) = await front.RollAsync();
            outOfRotation.AddRange(seconds);
            output.WriteLine(script.TrimEnd());
        }

        await Task.Delay(TimeSpan.FromSeconds(3));
        await load.StopSyncsAsync();
        var missing = await ReceivedByTheWaitersAsync(load);
        var absent = await AbsentFromTheDatabaseAsync(load);
        var status = await front.StatusAsync();

        output.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{load.Syncs} syncs ({devices} devices, {rounds} roll(s)), {load.FailedSyncs} failed, {load.Retries} retries; " +
            $"sync p50 {load.SyncPercentile(0.50):F0} ms, p99 {load.SyncPercentile(0.99):F0} ms, max {load.SyncPercentile(1):F0} ms; " +
            $"{load.Acknowledged.Count} acknowledged highlights; waiting devices: {load.AnsweredEarly} held pulls answered early, {load.Reconnects} reconnects; " +
            $"out of rotation per instance: {string.Join(", ", outOfRotation.Select(s => s.ToString("F1", CultureInfo.InvariantCulture) + " s"))}"));
        output.WriteLine(status.TrimEnd());
        foreach (var reason in load.RetryReasons.GroupBy(reason => reason).Select(group => $"syncing devices retried {group.Count()}x after: {group.Key}"))
        {
            output.WriteLine(reason);
        }

        foreach (var reason in load.ReconnectReasons.GroupBy(reason => reason).Select(group => $"waiting devices reconnected {group.Count()}x after: {group.Key}"))
        {
            output.WriteLine(reason);
        }

        Assert.True(load.FailedSyncs == 0, $"{load.FailedSyncs} syncs failed, the first: {string.Join('\n', load.Failures.Take(5))}");
        Assert.True(load.Syncs >= 100, $"only {load.Syncs} syncs ran");
        Assert.True(absent.Count == 0, $"{absent.Count} acknowledged highlights are not in the database: {string.Join(", ", absent.Take(5))}");
        Assert.True(missing.Count == 0, $"{missing.Count} acknowledged highlights never reached their user's waiting device: {string.Join(", ", missing.Take(5))}");
        await BothInstancesServeAsync();
    }

    /// <summary>
    /// What the drain prevents: the same roll done wrongly (SIGKILL, no drain, HAProxy learning of it
    /// from its health checks) fails the syncs of devices that do not retry. HAProxy sends reads again
    /// itself, so the failures are mostly the pushes in flight on the killed instance: full pushes
    /// (500 changes) here keep some in flight, and the roll is done again, up to 3 times, until a
    /// sync failed (one roll was enough in each run measured).
    /// </summary>
    [HaproxyFact]
    public async Task AKillWithoutDrainingFailsSyncsOfDevicesThatDoNotRetry()
    {
        await using var load = new RollingDevices(front.Front, HaproxyFront.Users, retries: false, changesPerPush: 500);
        load.StartSyncs(12);
        await Task.Delay(TimeSpan.FromSeconds(2));
        var rolls = 0;
        while (load.FailedSyncs == 0 && rolls < 3)
        {
            var (seconds, script) = await front.RollAsync(hard: true);
            rolls++;
            output.WriteLine(script.TrimEnd());
            output.WriteLine(string.Create(CultureInfo.InvariantCulture, $"out of rotation per instance: {seconds[0]:F1} s, {seconds[1]:F1} s"));
        }

        await load.StopSyncsAsync();
        output.WriteLine($"{load.Syncs} syncs, {load.FailedSyncs} failed, in {rolls} roll(s) with SIGKILL");
        foreach (var failure in load.Failures.Take(5))
        {
            output.WriteLine(failure);
        }

        Assert.True(load.FailedSyncs > 0, $"no sync failed in {load.Syncs} with each instance killed under them {rolls} times");
    }

    /// <summary>Waits up to 30 s for every waiting device to have every acknowledged push of its user; what is still missing.</summary>
    private static async Task<IReadOnlyList<string>> ReceivedByTheWaitersAsync(RollingDevices load)
    {
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var missing = load.NotYetReceived();
        while (missing.Count > 0 && clock.Elapsed < TimeSpan.FromSeconds(30))
        {
            await Task.Delay(200);
            missing = load.NotYetReceived();
        }

        return missing;
    }

    private async Task<IReadOnlyList<string>> AbsentFromTheDatabaseAsync(RollingDevices load)
    {
        var stored = new Dictionary<string, long>(StringComparer.Ordinal);
        await using var command = front.DataSource.CreateCommand("SELECT id, version FROM highlights WHERE id = ANY($1)");
        command.Parameters.Add(new Npgsql.NpgsqlParameter<string[]> { TypedValue = [.. load.Acknowledged.Keys] });
        await using var reader = await command.ExecuteReaderAsync();
        while (await reader.ReadAsync())
        {
            stored[reader.GetString(0)] = reader.GetInt64(1);
        }

        return [.. load.Acknowledged.Where(ack => !stored.TryGetValue(ack.Key, out var version) || version < ack.Value.Version).Select(ack => ack.Key)];
    }

    /// <summary>
    /// Both servers UP in HAProxy, and each serves requests sent through it: with the other one in
    /// maintenance (leastconn sends everything to the instance holding fewer waiting devices otherwise).
    /// </summary>
    private async Task BothInstancesServeAsync()
    {
        var status = await front.StatusAsync();
        Assert.True(StatusLine().Matches(status).Count(match => match.Groups[2].Value == "UP") == 2, $"not both servers UP:\n{status}");
        using var http = new HttpClient { BaseAddress = front.Front };
        foreach (var (serving, other) in new[] { (1, 2), (2, 1) })
        {
            await front.SetStateAsync(other, "maint");
            try
            {
                var before = Totals(await front.StatusAsync())[$"s{serving}"];
                for (var call = 0; call < 5; call++)
                {
                    using var ready = await http.GetAsync(new Uri("/healthz/ready", UriKind.Relative));
                    Assert.True(ready.IsSuccessStatusCode, $"/healthz/ready through HAProxy to s{serving} answered {(int)ready.StatusCode}");
                }

                Assert.True(Totals(await front.StatusAsync())[$"s{serving}"] >= before + 5, $"s{serving} did not take the calls");
            }
            finally
            {
                await front.SetStateAsync(other, "ready");
            }
        }
    }

    private static Dictionary<string, long> Totals(string status) =>
        StatusLine().Matches(status).ToDictionary(match => match.Groups[1].Value, match => long.Parse(match.Groups[3].Value, CultureInfo.InvariantCulture));

    private static int Setting(string name, int otherwise) =>
        int.TryParse(Environment.GetEnvironmentVariable(name), CultureInfo.InvariantCulture, out var value) && value > 0 ? value : otherwise;

    [GeneratedRegex(@"^(s\d) (.+?) sessions=\d+ total=(\d+)", RegexOptions.Multiline)]
    private static partial Regex StatusLine();
}

/// <summary>The rolling tests start processes on the box's cores: never beside other collections' load.</summary>
[CollectionDefinition(nameof(RollingCollection), DisableParallelization = true)]
public sealed class RollingCollection;
