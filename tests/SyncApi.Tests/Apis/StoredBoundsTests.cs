using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Purges;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.CollectionCalls;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;
using GrpcChange = Kobo.Sync.Contracts.Grpc.V1.PushedChange;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// What a user's devices can make the database keep beyond their live highlights and collections, each
/// bounded at its lowest here: tombstones of highlights never stored (Sync:MaxTombstonesPerUser), deleted
/// collections (Sync:MaxStoredCollectionsPerUser) and a collection's membership registers
/// (Sync:MaxBookRegistersPerCollection). Past a bound the push is refused whole, REST 409 and gRPC
/// FAILED_PRECONDITION naming the setting; what does not grow the store (deleting a live highlight)
/// passes; the purge gives room back.
/// </summary>
public sealed class StoredBoundsTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);
    private static readonly Dictionary<string, string?> Bounds = new()
    {
        ["Sync:MaxTombstonesPerUser"] = "1000",
        ["Sync:MaxStoredCollectionsPerUser"] = "3",
        ["Sync:MaxBookRegistersPerCollection"] = "4",
    };

    private readonly SyncServiceDatabase _db;
    private readonly SyncApiFactory _service;

    public StoredBoundsTests(SyncServiceDatabase db)
    {
        _db = db;
        _service = db.ServiceWith(Bounds);
    }

    public void Dispose() => _service.Dispose();

    private static object[] Deletes(string prefix, int count) =>
        Enumerable.Range(0, count).Select(i => Delete($"{prefix}{i:D4}", T0)).ToArray();

    [Fact]
    public async Task DeletesOfKeysNeverStoredArePastTheTombstoneBoundRefusedWholeWhileDeletingALiveHighlightPasses()
    {
        var user = _db.NewUser();
        using var device = _service.CreateClient().WithToken(TestTokens.For(user));
        await device.PushAsync(user, Upsert("live", "t", T0));
        await device.PushAsync(user, Deletes("a", 500));
        await device.PushAsync(user, Deletes("b", 500));

        using var refused = await device.PushRawAsync(user, Deletes("c", 2));
        var body = await refused.Content.ReadAsStringAsync(TestTimeout.Token);

        Assert.Equal(409, (int)refused.StatusCode);
        Assert.Equal("application/problem+json", refused.Content.Headers.ContentType?.MediaType);
        Assert.Contains("Sync:MaxTombstonesPerUser", body, StringComparison.Ordinal);
        Assert.Equal(1_001, (await _db.StoredAsync(user)).Count);
        Assert.Equal(1_000L, await TombstonesAsync(user));

        // Its row becomes the tombstone: nothing more is kept, so it passes at the bound.
        await device.PushAsync(user, Delete("live", T0.AddMinutes(1)));
        Assert.Equal(1_001L, await TombstonesAsync(user));

        // The purge removes expired tombstones and gives their room back.
        await new TombstonePurge(_db.DataSource).PurgeAsync(DateTimeOffset.UtcNow.AddDays(1), 10_000, TestTimeout.Token);
        Assert.Equal(0L, await TombstonesAsync(user));
        await device.PushAsync(user, Deletes("c", 2));
        Assert.Equal(2L, await TombstonesAsync(user));
    }

    [Fact]
    public async Task OverGrpcDeletesPastTheTombstoneBoundAreFailedPreconditionNamingTheSetting()
    {
        var user = _db.NewUser();
        using var host = new SyncGrpcTestHost(_db.ConnectionString, settings: Bounds);
        static GrpcChange Deleted(string key) => new() { Op = "delete", BookNo = 7, Key = key, ModifiedAt = Timestamp.FromDateTimeOffset(T0) };

        await host.Client.PushAsync(user, Enumerable.Range(0, 500).Select(i => Deleted($"a{i:D4}")).ToArray());
        await host.Client.PushAsync(user, Enumerable.Range(0, 500).Select(i => Deleted($"b{i:D4}")).ToArray());
        var error = await Assert.ThrowsAsync<RpcException>(() => host.Client.PushAsync(user, Deleted("c1")));

        Assert.Equal(StatusCode.FailedPrecondition, error.StatusCode);
        Assert.StartsWith("Sync:MaxTombstonesPerUser: ", error.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(1_000, (await _db.StoredAsync(user)).Count);
    }

    [Fact]
    public async Task AKoboAnnotationsPatchOfDeletesNeverStoredIsRefusedPastTheTombstoneBound()
    {
        var user = _db.NewUser();
        await KoboReadingServices.GrantAsync(_db, user, 3);
        using var phone = _service.CreateClient().WithToken(TestTokens.For(user, "kobo-libra"));
        var kobo = new KoboReadingServices(_service.CreateClient(), KoboLinks.RootOf(await phone.LinkAsync(user)));
        var content = BookUuid.Format(new BookNo(3));
        static string Deletes(int from, int count) =>
            $$"""{"updatedAnnotations": [], "deletedAnnotationIds": [{{string.Join(", ", Enumerable.Range(from, count).Select(i => $"\"{new Guid(i, 0, 0, new byte[8]):D}\""))}}]}""";

        using (var first = await kobo.PatchAsync(content, Deletes(1, 1_000)))
        {
            Assert.True(first.IsSuccessStatusCode, $"the first 1,000 deletes answered {(int)first.StatusCode}");
        }

        using var refused = await kobo.PatchAsync(content, Deletes(5_000, 5));

        Assert.Equal(409, (int)refused.StatusCode);
        Assert.Contains("Sync:MaxTombstonesPerUser", await refused.Content.ReadAsStringAsync(TestTimeout.Token), StringComparison.Ordinal);
        Assert.Equal(1_000L, await TombstonesAsync(user));
    }

    [Fact]
    public async Task DeletedCollectionsCountTowardTheStoredBoundAndTheirRegistersTowardTheirs()
    {
        var user = _db.NewUser();
        foreach (var book in new long[] { 1, 2, 3, 4, 5 })
        {
            await _db.OwnAsync(user, book);
        }

        using var bounded = _service.CreateClient().WithToken(TestTokens.For(user, "phone"));
        var ids = Enumerable.Range(0, 4).Select(_ => Guid.NewGuid()).ToArray();
        for (var i = 0; i < 3; i++)
        {
            await bounded.PushCollectionsAsync(user, [Upsert(ids[i], $"Shelf {i}", T0)]);
            await bounded.PushCollectionsAsync(user, [DeleteCollection(ids[i], T0.AddMinutes(1))]);
        }

        // No live collection at all, yet three kept: a fourth is past the stored bound.
        var stored = await bounded.PushCollectionsAsync(user, [Upsert(ids[3], "Shelf 3", T0)], expect: 409);
        Assert.Equal("Sync:MaxStoredCollectionsPerUser", stored.GetProperty("setting").GetString());

        // A deleted one brought back adds no row; its books added and removed are registers kept.
        await bounded.PushCollectionsAsync(user, [Upsert(ids[0], "Shelf 0 again", T0.AddMinutes(2)), AddBooks(ids[0], T0.AddMinutes(2), 1, 2)]);
        await bounded.PushCollectionsAsync(user, [RemoveBooks(ids[0], T0.AddMinutes(3), 1, 2), AddBooks(ids[0], T0.AddMinutes(3), 3, 4)]);
        var registers = await bounded.PushCollectionsAsync(user, [AddBooks(ids[0], T0.AddMinutes(4), 5)], expect: 409);
        Assert.Equal("Sync:MaxBookRegistersPerCollection", registers.GetProperty("setting").GetString());
    }

    [Fact]
    public async Task OverGrpcACollectionPastTheStoredBoundIsFailedPreconditionNamingTheSetting()
    {
        var user = _db.NewUser();
        using var host = new SyncGrpcTestHost(_db.ConnectionString, settings: Bounds);
        var auth = GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(user));
        Task<PushCollectionChangesResponse> PushAsync(string op, Guid id, DateTimeOffset at)
        {
            var request = new PushCollectionChangesRequest { UserNo = user };
            request.Changes.Add(new CollectionOp { Op = op, CollectionId = id.ToString(), Name = op == "upsert" ? "Shelf" : "", ModifiedAt = Timestamp.FromDateTimeOffset(at) });
            return host.Client.Sync.PushCollectionChangesAsync(request, auth, cancellationToken: TestTimeout.Token).ResponseAsync;
        }

        for (var i = 0; i < 3; i++)
        {
            var id = Guid.NewGuid();
            await PushAsync("upsert", id, T0);
            await PushAsync("delete", id, T0.AddMinutes(1));
        }

        var error = await Assert.ThrowsAsync<RpcException>(() => PushAsync("upsert", Guid.NewGuid(), T0));

        Assert.Equal(StatusCode.FailedPrecondition, error.StatusCode);
        Assert.StartsWith("Sync:MaxStoredCollectionsPerUser: ", error.Status.Detail, StringComparison.Ordinal);
    }

    private async Task<long> TombstonesAsync(long user)
    {
        await using var command = _db.DataSource.CreateCommand("SELECT tombstone_count FROM users WHERE user_no = $1");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        return (long)(await command.ExecuteScalarAsync(TestTimeout.Token))!;
    }
}
