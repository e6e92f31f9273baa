using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.ReadingStateCalls;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;
using static Kobo.Sync.SyncApi.Tests.Live.Support.TwoInstances;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>A device waiting for changes on one instance is woken by a reading state put on the other, as by a highlight push.</summary>
public sealed class ReadingStateWakeTests(TwoInstances service) : IClassFixture<TwoInstances>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    [Fact]
    public async Task ALongPollIsAnsweredWhenAReadingStatePutCommitsOnTheOtherInstance()
    {
        var user = service.NewUser();
        await service.OwnAsync(user, 7);
        using var reader = Rest(service.B, user, "reader");
        using var writer = Rest(service.A, user, "writer");
        var (_, token) = await reader.PullAllAsync(user);

        var poll = LongPollAsync(reader, user, token, wait: 20);
        await WaitingAsync(service.B, 1, "the reader waits on B");
        await Task.Delay(200, TestTimeout.Token);
        Assert.False(poll.IsCompleted);
        var put = DateTimeOffset.UtcNow;
        await writer.PutStateAsync(user, 7, new { position = Position(61.5, T0, "loc") });
        var answer = await poll;

        Assert.Equal(200, answer.Status);
        var change = Assert.Single(answer.Changes);
        Assert.Equal(("readingState", "loc"), (change.Str("kind"), change.GetProperty("readingState").GetProperty("position").Str("location")));
        Assert.True(DateTimeOffset.UtcNow - put < TimeSpan.FromSeconds(5), $"answered {DateTimeOffset.UtcNow - put} after the put");
        Assert.Empty((await reader.PullAllAsync(user, answer.Token)).Changes);
    }

    [Fact]
    public async Task AWatchGetsAPageWhenAReadingStatePutCommitsOnTheOtherInstance()
    {
        var user = service.NewUser();
        await service.OwnAsync(user, 7);
        using var call = service.B.Client.Sync.WatchChanges(
            new WatchChangesRequest { UserNo = user }, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(user)), DateTime.UtcNow.AddSeconds(25));
        Assert.True(await call.ResponseStream.MoveNext(TestTimeout.Token));
        var backlog = call.ResponseStream.Current;
        Assert.DoesNotContain(backlog.Changes, c => c.ChangeCase == SyncChange.ChangeOneofCase.ReadingState);

        await service.A.Client.Sync.PutReadingStateAsync(
            new PutReadingStateRequest
            {
                UserNo = user, BookNo = 7, Status = new ReadingStatus { Value = "finished", ModifiedAt = Timestamp.FromDateTimeOffset(T0) },
            },
            GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(user)), cancellationToken: TestTimeout.Token);
        WatchChangesResponse page;
        do
        {
            Assert.True(await call.ResponseStream.MoveNext(TestTimeout.Token), "the stream ended");
            page = call.ResponseStream.Current;
        }
        while (page.Heartbeat);

        Assert.Equal("finished", Assert.Single(page.Changes).ReadingState.State.Status.Value);
    }
}
