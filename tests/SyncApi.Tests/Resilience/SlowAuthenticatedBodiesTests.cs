using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.TricklingCalls;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Devices with a valid token that announce a body and trickle it: their bodies arrive on their own
/// time, outside the admission slots, so the devices that send whole requests keep being served at
/// their usual speed even when the slow ones are three times what the slots and queue hold.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class SlowAuthenticatedBodiesTests(SlowAuthenticatedBodiesTests.FewSlots service, ITestOutputHelper output) : IClassFixture<SlowAuthenticatedBodiesTests.FewSlots>
{
    // Four requests at a time and four waiting: a handful of slow bodies would fill both.
    private const int Slots = 4;
    private const int Queue = 4;

    // The requests one device may have in progress (Admission:PerDeviceConcurrentRequests, its default).
    private const int DeviceShare = 8;

    // Sent at once before a large body starts trickling: more than the 64 KiB the service once waited for.
    private const int LargeHead = 70_000;

    /// <summary>The whole service on the shared demo database with a small admission capacity.</summary>
    public sealed class FewSlots() : IDisposable
    {
        public SyncGrpcTestHost Host { get; } = new(SharedDemoDatabase.ConnectionString, settings: new Dictionary<string, string?>
        {
            ["Admission:ConcurrencyLimit"] = Slots.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ["Admission:QueueLimit"] = Queue.ToString(System.Globalization.CultureInfo.InvariantCulture),
        });

        public void Dispose() => Host.Dispose();
    }

    [Fact]
    public async Task SlowAuthenticatedBodiesDoNotHoldTheAdmissionSlotsThatWholeRequestsNeed()
    {
        await WarmAsync(service.Host);
        using var slowGrpc = NewH2cClient(service.Host);
        using var slowRest = new HttpClient { BaseAddress = service.Host.RestAddress, Timeout = Timeout.InfiniteTimeSpan };
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestTimeout.Token);
        // Three times what the slots and the queue together hold, half over each protocol.
        var slow = Enumerable.Range(0, 3 * (Slots + Queue) / 2)
            .SelectMany(i => new[]
            {
                TrickleGrpcAsync(slowGrpc, TestTokens.For(User, $"slow-grpc-{i}"), stop.Token),
                TrickleRestAsync(slowRest, TestTokens.For(User, $"slow-rest-{i}"), stop.Token),
            })
            .ToList();
        await Task.Delay(TimeSpan.FromMilliseconds(500), TestTimeout.Token);

        var devices = await DevicesMeanwhileAsync(service.Host);
        var stillTrickling = slow.Count(t => !t.IsCompleted);
        stop.Cancel();
        await Task.WhenAll(slow);

        Assert.Equal(slow.Count, stillTrickling);
        AssertServedAsUsual(devices, output);
    }

    /// <summary>
    /// One device token, many pushes announcing large bodies (a megabyte over REST, 4 MiB over gRPC), each
    /// sending 70,000 bytes at once (past what the service used to wait for before taking a slot) and
    /// trickling the rest above Kestrel's minimum rate, opened a tenth of a second apart (inside the
    /// device's rate). The device holds only its own share of requests in progress; the rest of its calls
    /// are refused at once with a time to come back, and every other device is served as usual.
    /// </summary>
    [Fact]
    public async Task ADeviceTricklingLargeBodiesHoldsOnlyItsOwnShareWhileOtherDevicesAreServed()
    {
        await WarmAsync(service.Host);
        using var slowGrpc = NewH2cClient(service.Host);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestTimeout.Token);
        var token = TestTokens.For(User, "trickling-large-bodies");
        var slow = new List<Task<Trickled>>();
        for (var i = 0; i < 3 * (Slots + Queue); i++)
        {
            slow.Add(i % 2 == 0
                ? TrickleLargeRestAsync(service.Host.RestAddress, token, LargeHead, stop.Token)
                : TrickleLargeGrpcAsync(slowGrpc, token, LargeHead, stop.Token));
            await Task.Delay(TimeSpan.FromMilliseconds(100), TestTimeout.Token);
        }

        await Task.Delay(TimeSpan.FromMilliseconds(500), TestTimeout.Token);
        var devices = await DevicesMeanwhileAsync(service.Host);
        var stillTrickling = slow.Count(t => !t.IsCompleted);
        var restStill = slow.Where((t, i) => i % 2 == 0).Count(t => !t.IsCompleted);
        stop.Cancel();
        var ended = await Task.WhenAll(slow);

        output.WriteLine($"{slow.Count} large trickling pushes from one device: {stillTrickling} still sending at the end ({restStill} REST)");
        output.WriteLine(string.Join(", ", ended.Select(t => $"{t.HttpStatus}/{t.GrpcStatus}")));
        AssertServedAsUsual(devices, output);
        Assert.InRange(stillTrickling, 1, DeviceShare);
        // Every call the device was refused says so precisely, with when to come back.
        Assert.All(ended.Where(t => t.HttpStatus != 0), t => Assert.True(
            (t.HttpStatus == 429 || t.GrpcStatus == "8") && t.RetryAdvised, t.ToString()));
    }

    [Fact]
    public async Task ADeviceThatHangsUpWhileSendingItsBodyLeavesNoErrorBehind()
    {
        await WarmAsync(service.Host);
        var sockets = new System.Collections.Concurrent.ConcurrentBag<System.Net.Sockets.Socket>();
        using var slowGrpc = new HttpClient(ResettingHandler(sockets))
        {
            BaseAddress = service.Host.GrpcAddress,
            DefaultRequestVersion = System.Net.HttpVersion.Version20,
            DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Timeout = Timeout.InfiniteTimeSpan,
        };
        using var slowRest = new HttpClient(ResettingHandler(sockets)) { BaseAddress = service.Host.RestAddress, Timeout = Timeout.InfiniteTimeSpan };
        var errorsBefore = service.Host.Logs.Events.Count(e => e.Level >= Serilog.Events.LogEventLevel.Error);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestTimeout.Token);
        var calls = Enumerable.Range(0, 5)
            .SelectMany(i => new[]
            {
                TrickleGrpcAsync(slowGrpc, TestTokens.For(User, $"leaving-grpc-{i}"), stop.Token),
                TrickleRestAsync(slowRest, TestTokens.For(User, $"leaving-rest-{i}"), stop.Token),
            })
            .ToList();
        await Task.Delay(TimeSpan.FromMilliseconds(500), TestTimeout.Token);

        // The connections are reset with the bodies half sent, as when a device loses its network.
        Assert.NotEmpty(sockets);
        foreach (var socket in sockets)
        {
            socket.Close();
        }

        stop.Cancel();
        foreach (var call in calls)
        {
            try
            {
                await call;
            }
            catch (HttpRequestException)
            {
                // The reset reached this client before the stop did: it sees the connection it lost.
            }
        }

        await Task.Delay(TimeSpan.FromMilliseconds(500), TestTimeout.Token);

        var errors = service.Host.Logs.Events.Where(e => e.Level >= Serilog.Events.LogEventLevel.Error).Skip(errorsBefore).ToList();
        Assert.True(errors.Count == 0, string.Join(Environment.NewLine, errors.Select(e => e.RenderMessage(System.Globalization.CultureInfo.InvariantCulture) + " " + e.Exception)));
    }

    /// <summary>Connections whose sockets the test can close with a TCP reset (linger 0), without a goodbye.</summary>
    private static SocketsHttpHandler ResettingHandler(System.Collections.Concurrent.ConcurrentBag<System.Net.Sockets.Socket> sockets) => new()
    {
        EnableMultipleHttp2Connections = true,
        ConnectCallback = async (context, cancellationToken) =>
        {
            var socket = new System.Net.Sockets.Socket(System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp)
            {
                NoDelay = true,
                LingerState = new System.Net.Sockets.LingerOption(true, 0),
            };
            await socket.ConnectAsync(context.DnsEndPoint, cancellationToken);
            sockets.Add(socket);
            return new System.Net.Sockets.NetworkStream(socket, ownsSocket: true);
        },
    };
}
