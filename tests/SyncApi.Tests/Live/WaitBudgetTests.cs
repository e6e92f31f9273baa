using System.Globalization;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Live.Support.TwoInstances;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>
/// Waiting devices have budgets of their own, per instance and per user, and none of admission
/// control's slots: over a budget a wait is answered at once (REST: the pull's answer with
/// <c>Retry-After</c>; gRPC: the backlog, then UNAVAILABLE or RESOURCE_EXHAUSTED with a pushback).
/// </summary>
public sealed class WaitBudgetTests(WaitBudgetTests.SmallBudgets service) : IClassFixture<WaitBudgetTests.SmallBudgets>
{
    /// <summary>Two waiters per instance, one per user; one admission slot and no queue.</summary>
    public sealed class SmallBudgets : TwoInstances
    {
        protected override IReadOnlyDictionary<string, string?> Settings => new Dictionary<string, string?>
        {
            ["Sync:MaxWaiters"] = "2",
            ["Sync:MaxWaitersPerUser"] = "1",
            ["Sync:WaitRefusedRetryAfterSeconds"] = "7",
            ["Admission:ConcurrencyLimit"] = "1",
            ["Admission:QueueLimit"] = "0",
        };
    }

    [Fact]
    public async Task OverTheUserAndTheInstanceBudgetsAWaitIsAnsweredAtOnceWithWhenToComeBack()
    {
        var (ada, ben, cy) = (service.NewUser(), service.NewUser(), service.NewUser());
        using var ada1 = Rest(service.A, ada, "ada-1");
        using var ada2 = Rest(service.A, ada, "ada-2");
        using var ben1 = Rest(service.A, ben, "ben-1");
        using var cy1 = Rest(service.A, cy, "cy-1");
        using var stop = new CancellationTokenSource();
        using var instruments = new HostInstruments(service.A);

        var attempts = 0;
        var waiting = LongPollAsync(ada1, ada, null, wait: 20, stop.Token);
        await WaitingAsync(service.A, 1, "ada's first device waits");
        var userFull = await RefusedWaitAsync(ada2, ada, waiters: 1);
        var alsoWaiting = LongPollAsync(ben1, ben, null, wait: 20, stop.Token);
        await WaitingAsync(service.A, 2, "ben's device waits");
        var instanceFull = await RefusedWaitAsync(cy1, cy, waiters: 2);

        // A refused wait still pulls once, in the instance's one slot, so on a busy box it may meet a
        // waiter's own pull there and get 503 with Retry-After, as any device does; like a device, it retries.
        async Task<LongPoll> RefusedWaitAsync(HttpClient client, long user, int waiters)
        {
            for (var attempt = 1; ; attempt++)
            {
                attempts++;
                var answer = await LongPollAsync(client, user, null, wait: 20);
                if (answer.Status != 503 || attempt == 3)
                {
                    return answer;
                }

                await WaitingAsync(service.A, waiters, "the slot is free again");
            }
        }

        Assert.All(new[] { userFull, instanceFull }, refused =>
        {
            Assert.Equal(200, refused.Status); // the pull's own answer...
            Assert.InRange(refused.RetryAfter!.Value, TimeSpan.FromSeconds(7), TimeSpan.FromSeconds(14)); // ...and when to wait again, spread
            Assert.True(refused.Elapsed < TimeSpan.FromSeconds(3), $"took {refused.Elapsed}");
            Assert.False(string.IsNullOrEmpty(refused.Token));
        });
        Assert.False(waiting.IsCompleted);
        Assert.False(alsoWaiting.IsCompleted);
        Assert.Equal(attempts, instruments.Count("kobo.sync.live.refused"));
        await stop.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Task.WhenAll(waiting, alsoWaiting));
        await WaitingAsync(service.A, 0, "the waiters leave");
    }

    [Fact]
    public async Task AWatchOverTheBudgetGetsTheBacklogThenUnavailableWithAPushback()
    {
        var (ada, ben, cy) = (service.NewUser(), service.NewUser(), service.NewUser());
        using var stop = new CancellationTokenSource();
        // One after the other: the instance has one admission slot and no queue, and each first pull takes it.
        var first = LongPollAsync(Rest(service.B, ada), ada, null, wait: 20, stop.Token);
        await WaitingAsync(service.B, 1, "one device waits");
        var second = LongPollAsync(Rest(service.B, ben), ben, null, wait: 20, stop.Token);
        await WaitingAsync(service.B, 2, "two devices wait");
        var waiting = new[] { first, second };

        using var call = service.B.Client.Sync.WatchChanges(
            new WatchChangesRequest { UserNo = cy }, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(cy)), cancellationToken: TestTimeout.Token);
        Assert.True(await call.ResponseStream.MoveNext(TestTimeout.Token)); // the backlog (here: the current token)
        var refused = await Assert.ThrowsAsync<RpcException>(() => call.ResponseStream.MoveNext(TestTimeout.Token));

        Assert.Equal(StatusCode.Unavailable, refused.StatusCode);
        Assert.InRange(long.Parse(refused.Trailers.GetValue("grpc-retry-pushback-ms")!, CultureInfo.InvariantCulture), 7000, 14000);
        await stop.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Task.WhenAll(waiting));
    }

    [Fact]
    public async Task WaitingDevicesHoldNoAdmissionSlot()
    {
        var (ada, ben) = (service.NewUser(), service.NewUser());
        using var stop = new CancellationTokenSource();
        var waiting = LongPollAsync(Rest(service.A, ada), ada, null, wait: 20, stop.Token);
        await WaitingAsync(service.A, 1, "a device waits");

        // The instance's one slot is free: other devices are served, one after the other.
        using var other = Rest(service.A, ben, "other");
        for (var i = 0; i < 3; i++)
        {
            await other.GetJsonAsync($"/v1/users/{ben}", 200);
            await other.PullPageAsync(ben, null);
        }

        Assert.False(waiting.IsCompleted);
        await stop.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => waiting);
    }
}
