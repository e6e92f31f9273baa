using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Live.Support.TwoInstances;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>
/// A device's waits, REST waits and gRPC watches together, take its share of its user's places
/// (<c>Sync:MaxWaitersPerDevice</c>): one token cannot hold them all, and the user's other devices
/// still wait.
/// </summary>
public sealed class DeviceWaitShareTests(DeviceWaitShareTests.SmallShares service) : IClassFixture<DeviceWaitShareTests.SmallShares>
{
    /// <summary>Four places per user, two per device.</summary>
    public sealed class SmallShares : TwoInstances
    {
        protected override IReadOnlyDictionary<string, string?> Settings => new Dictionary<string, string?>
        {
            ["Sync:MaxWaitersPerUser"] = "4",
            ["Sync:MaxWaitersPerDevice"] = "2",
        };
    }

    private static AsyncServerStreamingCall<WatchChangesResponse> Watch(SyncGrpcTestHost host, long user, string device) =>
        host.Client.Sync.WatchChanges(
            new WatchChangesRequest { UserNo = user },
            GrpcTestClient.ToMetadata([new("authorization", $"Bearer {TestTokens.For(user, device)}")]),
            cancellationToken: TestTimeout.Token);

    [Fact]
    public async Task OneTokensWatchesPastItsShareAreResourceExhaustedAndTheUsersOtherDevicesStillWatch()
    {
        var user = service.NewUser();
        using var first = Watch(service.A, user, "reader");
        Assert.True(await first.ResponseStream.MoveNext(TestTimeout.Token));
        using var second = Watch(service.A, user, "reader");
        Assert.True(await second.ResponseStream.MoveNext(TestTimeout.Token));
        await WaitingAsync(service.A, 2, "the reader's two watches wait");

        using var third = Watch(service.A, user, "reader");
        Assert.True(await third.ResponseStream.MoveNext(TestTimeout.Token)); // the backlog, then the refusal
        var refused = await Assert.ThrowsAsync<RpcException>(() => third.ResponseStream.MoveNext(TestTimeout.Token));
        Assert.Equal(StatusCode.ResourceExhausted, refused.StatusCode);
        Assert.NotNull(refused.Trailers.GetValue("grpc-retry-pushback-ms"));

        using var phone = Watch(service.A, user, "phone");
        Assert.True(await phone.ResponseStream.MoveNext(TestTimeout.Token));
        await WaitingAsync(service.A, 3, "the user's phone watches too");
    }

    [Fact]
    public async Task OneTokensRestWaitsPastItsShareAreAnsweredAtOnceAndTheUsersOtherDevicesStillWait()
    {
        var user = service.NewUser();
        using var reader = Rest(service.B, user, "reader");
        using var phone = Rest(service.B, user, "phone");
        using var stop = new CancellationTokenSource();
        var waiting = new List<Task<LongPoll>> { LongPollAsync(reader, user, null, wait: 60, stop.Token) };
        await WaitingAsync(service.B, 1, "the reader's first wait");
        waiting.Add(LongPollAsync(reader, user, null, wait: 60, stop.Token));
        await WaitingAsync(service.B, 2, "the reader's second wait");

        var refused = await LongPollAsync(reader, user, null, wait: 60);
        Assert.Equal(200, refused.Status);
        Assert.NotNull(refused.RetryAfter);
        Assert.Empty(refused.Changes);

        waiting.Add(LongPollAsync(phone, user, null, wait: 60, stop.Token));
        await WaitingAsync(service.B, 3, "the user's phone waits too");
        Assert.All(waiting, w => Assert.False(w.IsCompleted));
        await stop.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => Task.WhenAll(waiting));
    }
}
