using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>A device watching for changes on one instance is woken by a collection push on the other, as by a highlight push.</summary>
public sealed class CollectionWakeTests(TwoInstances service) : IClassFixture<TwoInstances>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    [Fact]
    public async Task AWatchGetsAPageWhenACollectionPushCommitsOnTheOtherInstance()
    {
        var user = service.NewUser();
        var id = Guid.NewGuid();
        using var call = service.B.Client.Sync.WatchChanges(
            new WatchChangesRequest { UserNo = user }, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(user)), DateTime.UtcNow.AddSeconds(25));
        Assert.True(await call.ResponseStream.MoveNext(TestTimeout.Token));
        Assert.DoesNotContain(call.ResponseStream.Current.Changes, c => c.ChangeCase == SyncChange.ChangeOneofCase.Collection);

        var push = new PushCollectionChangesRequest { UserNo = user };
        push.Changes.Add(new CollectionOp { Op = "upsert", CollectionId = id.ToString(), Name = "Woken", ModifiedAt = Timestamp.FromDateTimeOffset(T0) });
        await service.A.Client.Sync.PushCollectionChangesAsync(push, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(user)), cancellationToken: TestTimeout.Token);
        WatchChangesResponse page;
        do
        {
            Assert.True(await call.ResponseStream.MoveNext(TestTimeout.Token), "the stream ended");
            page = call.ResponseStream.Current;
        }
        while (page.Heartbeat);

        Assert.Equal("Woken", Assert.Single(page.Changes).Collection.Collection.Name);
    }
}
