using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.TricklingCalls;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Devices with a valid token that announce a body and trickle it: their bodies arrive on their own
/// time, outside the admission slots, so the devices that send whole requests keep being served at
/// their usual speed even when the slow ones are three times what the slots and queue hold.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
public sealed class SlowAuthenticatedBodiesTests(SlowAuthenticatedBodiesTests.FewSlots service, ITestOutputHelper output) : IClassFixture<SlowAuthenticatedBodiesTests.FewSlots>
{
    // Four requests at a time and four waiting: a handful of slow bodies would fill both.
    private const int Slots = 4;
    private const int Queue = 4;

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
}
