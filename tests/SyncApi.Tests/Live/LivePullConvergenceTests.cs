using System.Collections.Concurrent;
using System.Text.Json;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;
using static Kobo.Sync.SyncApi.Tests.Live.Support.TwoInstances;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>
/// A property of live pull, over seeded random runs: while random pushes (upserts and deletes, alone or
/// several at once, through either instance) commit, devices that only ever wait for changes (REST
/// long polls that wait again at once, gRPC watches that resume from their last token) end up holding
/// exactly the server's state, soon after the last push, long before any of their waits would end by
/// itself: no change was missed.
/// </summary>
public sealed class LivePullConvergenceTests(LivePullConvergenceTests.OwnDatabase service, ITestOutputHelper output)
    : IClassFixture<LivePullConvergenceTests.OwnDatabase>
{
    public sealed class OwnDatabase : TwoInstances;

    /// <summary>Each device waits this long; convergence must come far sooner.</summary>
    private const int WaitSeconds = 20;
    private static readonly TimeSpan ConvergeWithin = TimeSpan.FromSeconds(6);
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    [Theory]
    [InlineData(20261123)]
    [InlineData(7)]
    public async Task DevicesThatOnlyWaitForChangesEndWithTheServersStateWhateverThePushes(int seed)
    {
        var random = new Random(seed);
        long[] users = [service.NewUser(), service.NewUser()];
        using var stop = new CancellationTokenSource();
        var devices = users.SelectMany(user => new[]
        {
            new Device(user, $"rest-a-{user}"), new Device(user, $"rest-b-{user}"), new Device(user, $"grpc-b-{user}"),
        }).ToList();
        var loops = new List<Task>
        {
            RestLoopAsync(service.A, devices[0], stop.Token), RestLoopAsync(service.B, devices[1], stop.Token), WatchLoopAsync(service.B, devices[2], stop.Token),
            RestLoopAsync(service.B, devices[3], stop.Token), RestLoopAsync(service.A, devices[4], stop.Token), WatchLoopAsync(service.A, devices[5], stop.Token),
        };
        await WaitingAsync(service.A, 3, "three devices wait on A");
        await WaitingAsync(service.B, 3, "three devices wait on B");

        // 30 rounds of one to three concurrent pushes of one to three changes over eight keys per user.
        var pushes = 0;
        for (var round = 0; round < 30; round++)
        {
            var batches = Enumerable.Range(0, random.Next(1, 4)).Select(_ =>
            {
                var user = users[random.Next(users.Length)];
                var host = random.Next(2) == 0 ? service.A : service.B;
                var changes = Enumerable.Range(0, random.Next(1, 4)).Select(_ =>
                {
                    var key = "k" + random.Next(8);
                    return random.Next(4) == 0
                        ? Delete(key, T0.AddSeconds(round))
                        : Upsert(key, $"round {round} text {random.Next(1000)}", T0.AddSeconds(round), color: random.Next(2) == 0 ? "yellow" : "blue");
                }).ToArray();
                return (host, user, changes, pause: random.Next(0, 60));
            }).ToList();
            await Task.WhenAll(batches.Select(async b =>
            {
                await Task.Delay(b.pause, TestTimeout.Token);
                using var client = Rest(b.host, b.user, "pusher");
                await client.PushAsync(b.user, b.changes);
            }));
            pushes += batches.Count;
        }

        var lastPush = DateTimeOffset.UtcNow;
        var expected = new Dictionary<long, Dictionary<string, string>>();
        foreach (var user in users)
        {
            using var checker = Rest(service.A, user, "checker");
            expected[user] = State((await checker.PullAllAsync(user)).Changes);
        }

        try
        {
            await EventuallyAsync(() => devices.All(d => d.Matches(expected[d.User])), "every device holds the server's state", ConvergeWithin.TotalSeconds);
        }
        finally
        {
            output.WriteLine($"seed {seed}: {pushes} pushes; converged {DateTimeOffset.UtcNow - lastPush:g} after the last; answers per device: {string.Join(", ", devices.Select(d => $"{d.Name} {d.Answers}"))}");
            foreach (var device in devices.Where(d => !d.Matches(expected[d.User])))
            {
                output.WriteLine($"{device.Name} differs: {string.Join("; ", device.Differences(expected[device.User]))}");
            }

            await stop.CancelAsync();
            await Task.WhenAll(loops.Select(l => l.ContinueWith(_ => { }, TaskScheduler.Default)));
        }

        Assert.All(devices, d => Assert.Empty(d.Errors));
    }

    private static async Task RestLoopAsync(SyncGrpcTestHost host, Device device, CancellationToken stop)
    {
        using var client = Rest(host, device.User, device.Name);
        string? token = null;
        while (!stop.IsCancellationRequested)
        {
            try
            {
                var answer = await LongPollAsync(client, device.User, token, WaitSeconds, stop);
                if (answer.Status != 200)
                {
                    device.Errors.Add($"{answer.Status}: {answer.Body}");
                    return;
                }

                device.Apply(answer.Changes.Select(c => (c.Str("id"), Describe(c))));
                token = answer.Token;
            }
            catch (OperationCanceledException) when (stop.IsCancellationRequested)
            {
                return;
            }
        }
    }

    private static async Task WatchLoopAsync(SyncGrpcTestHost host, Device device, CancellationToken stop)
    {
        var token = string.Empty;
        while (!stop.IsCancellationRequested)
        {
            try
            {
                using var call = host.Client.Sync.WatchChanges(
                    new WatchChangesRequest { UserNo = device.User, Since = token },
                    GrpcTestClient.ToMetadata([new("authorization", $"Bearer {TestTokens.For(device.User, device.Name)}")]),
                    DateTime.UtcNow.AddSeconds(WaitSeconds), stop);
                while (await call.ResponseStream.MoveNext(stop))
                {
                    var page = call.ResponseStream.Current;
                    device.Apply(page.Changes.Where(c => c.Highlight is not null).Select(c => (c.Highlight.Id, Describe(c.Highlight))));
                    token = page.SyncToken;
                }
            }
            catch (RpcException e) when (e.StatusCode == StatusCode.DeadlineExceeded)
            {
                // Resume from the last token, as a device does.
            }
            catch (Exception) when (stop.IsCancellationRequested)
            {
                return;
            }
        }
    }

    private static Dictionary<string, string> State(IEnumerable<JsonElement> changes)
    {
        var state = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var change in changes.Where(c => c.Str("kind") == "highlight"))
        {
            state[change.Str("id")] = Describe(change);
        }

        return state;
    }

    private static string Describe(JsonElement change) => change.GetProperty("deleted").GetBoolean()
        ? $"v{change.Str("version")} deleted"
        : $"v{change.Str("version")} {change.Str("color")} {change.Str("text")}";

    private static string Describe(HighlightChange change) => change.Deleted
        ? $"v{change.Version} deleted"
        : $"v{change.Version} {change.Color} {change.Text}";

    /// <summary>A device's local copy: the latest state of each highlight it was sent, applied by id.</summary>
    private sealed class Device(long user, string name)
    {
        private readonly ConcurrentDictionary<string, string> _state = new(StringComparer.Ordinal);
        private int _answers;

        public long User { get; } = user;

        public string Name { get; } = name;

        public ConcurrentBag<string> Errors { get; } = [];

        public int Answers => Volatile.Read(ref _answers);

        public void Apply(IEnumerable<(string Id, string State)> changes)
        {
            foreach (var (id, state) in changes)
            {
                _state[id] = state;
            }

            Interlocked.Increment(ref _answers);
        }

        public bool Matches(Dictionary<string, string> expected) => !Differences(expected).Any();

        public IEnumerable<string> Differences(Dictionary<string, string> expected) =>
            expected.Where(e => _state.GetValueOrDefault(e.Key) != e.Value).Select(e => $"{e.Key}: has {_state.GetValueOrDefault(e.Key) ?? "nothing"}, server {e.Value}")
                .Concat(_state.Keys.Where(k => !expected.ContainsKey(k)).Select(k => $"{k}: not on the server"));
    }
}
