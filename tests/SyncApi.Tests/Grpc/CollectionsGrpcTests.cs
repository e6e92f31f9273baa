using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.CollectionCalls;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>ListCollections, GetCollection, PushCollectionChanges and the collection change of PullChanges on real listeners and a real PostgreSQL.</summary>
public sealed class CollectionsGrpcTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-3);
    private readonly SyncServiceDatabase _db;
    private readonly SyncGrpcTestHost _host;

    public CollectionsGrpcTests(SyncServiceDatabase db)
    {
        _db = db;
        _host = new SyncGrpcTestHost(db.ConnectionString);
    }

    public void Dispose() => _host.Dispose();

    private Metadata Auth(long user) => GrpcTestClient.ToMetadata(As(user));

    private static CollectionOp Op(string op, Guid id, DateTimeOffset at, string name = "", params long[] books)
    {
        var message = new CollectionOp { Op = op, CollectionId = id.ToString(), Name = name, ModifiedAt = Timestamp.FromDateTimeOffset(at) };
        message.BookNos.AddRange(books);
        return message;
    }

    private async Task<PushCollectionChangesResponse> PushAsync(long user, params CollectionOp[] ops)
    {
        var request = new PushCollectionChangesRequest { UserNo = user };
        request.Changes.AddRange(ops);
        return await _host.Client.Sync.PushCollectionChangesAsync(request, Auth(user), cancellationToken: TestTimeout.Token);
    }

    [Fact]
    public async Task ACollectionPushedOverRestIsListedReadAndPulledOverGrpcFieldForField()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 3);
        await _db.OwnAsync(user, 4);
        using var rest = _db.Device(user);
        var id = Guid.NewGuid();
        var pushed = await rest.PushCollectionsAsync(user, [Upsert(id, "Shelf \ud83d\udcda", T0), AddBooks(id, T0.AddMinutes(1), 4, 3)]);
        var json = Assert.Single(pushed.GetProperty("collections").EnumerateArray());

        var list = await _host.Client.Sync.ListCollectionsAsync(new ListCollectionsRequest { UserNo = user }, Auth(user), cancellationToken: TestTimeout.Token);
        var one = await _host.Client.Sync.GetCollectionAsync(
            new GetCollectionRequest { UserNo = user, CollectionId = id.ToString() }, Auth(user), cancellationToken: TestTimeout.Token);
        var pull = await _host.Client.Sync.PullChangesAsync(new PullChangesRequest { UserNo = user }, Auth(user), cancellationToken: TestTimeout.Token);

        Assert.Equal(one, Assert.Single(list.Collections));
        Assert.Equal("", list.NextCursor);
        Assert.Equal((id.ToString("D"), "Shelf \ud83d\udcda", false), (one.CollectionId, one.Name, one.Deleted));
        Assert.Equal([3L, 4L], one.BookNos);
        Assert.Equal(json.GetProperty("modifiedAt").GetDateTimeOffset(), one.ModifiedAt.ToDateTimeOffset());
        Assert.Equal(json.GetProperty("createdAt").GetDateTimeOffset(), one.CreatedAt.ToDateTimeOffset());
        var change = Assert.Single(pull.Changes, c => c.ChangeCase == SyncChange.ChangeOneofCase.Collection);
        Assert.Equal(one, change.Collection.Collection);
    }

    [Fact]
    public async Task APushOverGrpcAppliesInOrderAndAStaleRenameAfterADeleteIsAConflict()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 3);
        var id = Guid.NewGuid();

        var first = await PushAsync(user, Op("upsert", id, T0, "A"), Op("addBooks", id, T0, books: 3), Op("delete", id, T0.AddMinutes(10)));
        var stale = await PushAsync(user, Op("upsert", id, T0.AddMinutes(5), "B"), Op("removeBooks", id, T0.AddMinutes(6), books: 3));

        Assert.Equal(["applied", "applied", "applied"], first.Results.Select(r => r.Status));
        Assert.Equal(["conflict", "conflict"], stale.Results.Select(r => r.Status));
        Assert.All(stale.Results, r => Assert.Equal(id.ToString("D"), r.Id));
        var after = Assert.Single(stale.Collections);
        Assert.Equal(("A", true), (after.Name, after.Deleted));
        Assert.Empty(after.BookNos);
    }

    [Fact]
    public async Task BrokenOperationsAreRejectedAloneNamingTheirField()
    {
        var user = _db.NewUser();
        var id = Guid.NewGuid();

        var push = await PushAsync(
            user,
            new CollectionOp { Op = "upsert", CollectionId = id.ToString(), Name = "x" },
            Op("upsert", id, T0),
            Op("addBooks", id, T0),
            Op("addBooks", id, T0, books: 0),
            new CollectionOp { Op = "upsert", CollectionId = "", Name = "x", ModifiedAt = Timestamp.FromDateTimeOffset(T0) },
            new CollectionOp { Op = "upsert", CollectionId = id.ToString(), Name = "x", ModifiedAt = new Timestamp { Seconds = -5 } },
            Op("upsert", id, T0, name: " \t\u00a0 "));

        Assert.Equal(
            ["modifiedAt:", "name:", "bookNos:", "bookNos[0]:", "collectionId:", "modifiedAt:", "name:"],
            push.Results.Select(r => r.Reason[..(r.Reason.IndexOf(':', StringComparison.Ordinal) + 1)]));
        Assert.All(push.Results, r => Assert.Equal("rejected", r.Status));
    }

    [Theory]
    [InlineData("", StatusCode.InvalidArgument)]
    [InlineData("nope", StatusCode.InvalidArgument)]
    [InlineData("00000000-0000-0000-0000-000000000000", StatusCode.InvalidArgument)]
    [InlineData("5f0c3a4e-2d7b-4b8e-9a51-7b1c0e6d9f10", StatusCode.NotFound)]
    public async Task GetCollectionAnswersAPreciseStatus(string id, StatusCode expected)
    {
        var user = _db.NewUser();

        var error = await Assert.ThrowsAsync<RpcException>(() => _host.Client.Sync.GetCollectionAsync(
            new GetCollectionRequest { UserNo = user, CollectionId = id }, Auth(user), cancellationToken: TestTimeout.Token).ResponseAsync);

        Assert.Equal(expected, error.StatusCode);
    }

    [Fact]
    public async Task ListingAnotherUsersCollectionsIsPermissionDeniedAndABadPageSizeIsInvalidArgument()
    {
        var user = _db.NewUser();

        var denied = await Assert.ThrowsAsync<RpcException>(() => _host.Client.Sync.ListCollectionsAsync(
            new ListCollectionsRequest { UserNo = user }, Auth(_db.NewUser()), cancellationToken: TestTimeout.Token).ResponseAsync);
        var badSize = await Assert.ThrowsAsync<RpcException>(() => _host.Client.Sync.ListCollectionsAsync(
            new ListCollectionsRequest { UserNo = user, PageSize = 101 }, Auth(user), cancellationToken: TestTimeout.Token).ResponseAsync);
        var tooMany = await Assert.ThrowsAsync<RpcException>(() => PushAsync(user, [.. Enumerable.Range(0, 501).Select(_ => Op("delete", Guid.NewGuid(), T0))]));

        Assert.Equal(StatusCode.PermissionDenied, denied.StatusCode);
        Assert.Equal(StatusCode.InvalidArgument, badSize.StatusCode);
        Assert.StartsWith("pageSize:", badSize.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(StatusCode.InvalidArgument, tooMany.StatusCode);
    }

    [Fact]
    public async Task APushPastTheBoundIsFailedPreconditionNamingTheSetting()
    {
        using var bounded = new SyncGrpcTestHost(_db.ConnectionString, settings: new Dictionary<string, string?> { ["Sync:MaxCollectionsPerUser"] = "1" });
        var user = _db.NewUser();
        var request = new PushCollectionChangesRequest { UserNo = user };
        request.Changes.Add(Op("upsert", Guid.NewGuid(), T0, "one"));
        request.Changes.Add(Op("upsert", Guid.NewGuid(), T0, "two"));

        var error = await Assert.ThrowsAsync<RpcException>(() => bounded.Client.Sync.PushCollectionChangesAsync(request, Auth(user), cancellationToken: TestTimeout.Token).ResponseAsync);

        Assert.Equal(StatusCode.FailedPrecondition, error.StatusCode);
        Assert.StartsWith("Sync:MaxCollectionsPerUser:", error.Status.Detail, StringComparison.Ordinal);
    }
}
