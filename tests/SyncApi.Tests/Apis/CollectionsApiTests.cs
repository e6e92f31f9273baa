using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.CollectionCalls;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// /v1/users/{userNo}/collections on a real PostgreSQL: the push of operations with the per-register
/// conflict rule, the reads, the <c>collection</c> change of the delta pull, the bounds and bad input.
/// </summary>
public sealed class CollectionsApiTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-3);
    private readonly SyncServiceDatabase _db;
    private readonly SyncApiFactory _bounded;

    public CollectionsApiTests(SyncServiceDatabase db)
    {
        _db = db;
        _bounded = db.ServiceWith(new() { ["Sync:MaxCollectionsPerUser"] = "3", ["Sync:MaxBooksPerCollection"] = "4" });
    }

    public void Dispose() => _bounded.Dispose();

    private async Task<long> UserOwningAsync(params long[] books)
    {
        var user = _db.NewUser();
        foreach (var book in books)
        {
            await _db.OwnAsync(user, book);
        }

        return user;
    }

    [Fact]
    public async Task ACollectionCreatedOnOneDeviceIsListedReadAndPulledOnAnother()
    {
        var user = await UserOwningAsync(3, 4);
        using var phone = _db.Device(user, "phone");
        using var tablet = _db.Device(user, "tablet");
        var id = Guid.NewGuid();

        var push = await phone.PushCollectionsAsync(user, [Upsert(id, "Summer \u2600 reads", T0), AddBooks(id, T0.AddMinutes(1), 4, 3)]);

        Assert.Equal(["applied", "applied"], push.Statuses());
        var listed = Assert.Single(await tablet.ListCollectionsAsync(user));
        Assert.Equal((id.ToString("D"), "Summer \u2600 reads", false), (listed.Str("id"), listed.Str("name"), listed.GetProperty("deleted").GetBoolean()));
        Assert.Equal([3L, 4L], listed.Books());
        Assert.Equal(listed.GetRawText(), (await tablet.GetCollectionAsync(user, id.ToString())).GetRawText());
        var (changes, _) = await tablet.PullAllAsync(user);
        var change = Assert.Single(changes, c => c.Str("kind") == "collection");
        Assert.Equal(id.ToString("D"), change.Str("id"));
        Assert.False(change.TryGetProperty("bookNo", out _));
        Assert.Equal(listed.GetRawText(), change.GetProperty("collection").GetRawText());
    }

    [Fact]
    public async Task ARenameAndADeleteArePulledByTheOtherDeviceAndTheDeletedOneLeavesTheList()
    {
        var user = await UserOwningAsync(3);
        using var phone = _db.Device(user, "phone");
        using var tablet = _db.Device(user, "tablet");
        var id = Guid.NewGuid();
        await phone.PushCollectionsAsync(user, [Upsert(id, "To read", T0), AddBooks(id, T0, 3)]);
        var (_, token) = await tablet.PullAllAsync(user);

        await phone.PushCollectionsAsync(user, [Upsert(id, "Reading next", T0.AddMinutes(1))]);
        var (renamed, token2) = await tablet.PullAllAsync(user, token);
        await phone.PushCollectionsAsync(user, [DeleteCollection(id, T0.AddMinutes(2))]);
        var (deleted, _) = await tablet.PullAllAsync(user, token2);

        Assert.Equal("Reading next", Assert.Single(renamed).GetProperty("collection").Str("name"));
        var tombstone = Assert.Single(deleted).GetProperty("collection");
        Assert.True(tombstone.GetProperty("deleted").GetBoolean());
        Assert.Empty(tombstone.Books());
        Assert.Empty(await tablet.ListCollectionsAsync(user));
        Assert.True((await tablet.GetCollectionAsync(user, id.ToString())).GetProperty("deleted").GetBoolean());
    }

    [Fact]
    public async Task AStaleDevicesRenameOrAddAfterADeleteLeavesTheCollectionDeleted()
    {
        var user = await UserOwningAsync(3, 5);
        using var phone = _db.Device(user, "phone");
        using var stale = _db.Device(user, "stale");
        var id = Guid.NewGuid();
        await phone.PushCollectionsAsync(user, [Upsert(id, "Old", T0), AddBooks(id, T0, 3)]);
        await phone.PushCollectionsAsync(user, [DeleteCollection(id, T0.AddMinutes(10))]);

        // The stale device edited before the deletion, offline, and syncs only now.
        var push = await stale.PushCollectionsAsync(user, [Upsert(id, "Renamed offline", T0.AddMinutes(5)), AddBooks(id, T0.AddMinutes(6), 5)]);

        Assert.Equal(["conflict", "conflict"], push.Statuses());
        var after = Assert.Single(push.GetProperty("collections").EnumerateArray());
        Assert.True(after.GetProperty("deleted").GetBoolean());
        var stored = await phone.GetCollectionAsync(user, id.ToString());
        Assert.Equal(("Old", true), (stored.Str("name"), stored.GetProperty("deleted").GetBoolean()));
    }

    [Fact]
    public async Task TwoDevicesAddingDifferentBooksAreBothKeptAndALaterRemovalWinsOverAnOlderAdd()
    {
        var user = await UserOwningAsync(3, 4, 5);
        using var phone = _db.Device(user, "phone");
        using var tablet = _db.Device(user, "tablet");
        var id = Guid.NewGuid();
        await phone.PushCollectionsAsync(user, [Upsert(id, "Shared", T0)]);

        await phone.PushCollectionsAsync(user, [AddBooks(id, T0.AddMinutes(1), 3), RemoveBooks(id, T0.AddMinutes(9), 5)]);
        var tabletPush = await tablet.PushCollectionsAsync(user, [AddBooks(id, T0.AddMinutes(2), 4, 5)]);

        Assert.Equal(["applied"], tabletPush.Statuses());
        var books = (await tablet.GetCollectionAsync(user, id.ToString())).Books();
        Assert.Equal(new long[] { 3, 4 }, books);
    }

    [Fact]
    public async Task ARetriedPushIsUnchangedAndCreatesNoSecondCollection()
    {
        var user = await UserOwningAsync(3);
        using var device = _db.Device(user);
        var id = Guid.NewGuid();
        object[] ops = [Upsert(id, "Once", T0), AddBooks(id, T0, 3)];
        await device.PushCollectionsAsync(user, ops);

        var again = await device.PushCollectionsAsync(user, ops);

        Assert.Equal(["unchanged", "unchanged"], again.Statuses());
        Assert.Single(await device.ListCollectionsAsync(user));
    }

    [Fact]
    public async Task AnOlderRenameIsAConflictAndTheAnswerCarriesTheNameThatWon()
    {
        var user = await UserOwningAsync();
        using var device = _db.Device(user);
        var id = Guid.NewGuid();
        await device.PushCollectionsAsync(user, [Upsert(id, "Newer", T0.AddMinutes(5))]);

        var push = await device.PushCollectionsAsync(user, [Upsert(id, "Older", T0.AddMinutes(1))]);

        Assert.Equal(["conflict"], push.Statuses());
        Assert.Equal("Newer", Assert.Single(push.GetProperty("collections").EnumerateArray()).Str("name"));
    }

    [Fact]
    public async Task TheLosingDevicesNextPullBringsTheWinnerEvenWhenItHadPulledItBefore()
    {
        var user = await UserOwningAsync();
        using var winner = _db.Device(user, "winner");
        using var loser = _db.Device(user, "loser");
        var id = Guid.NewGuid();
        await winner.PushCollectionsAsync(user, [Upsert(id, "Newer", T0.AddMinutes(5))]);
        var (_, token) = await loser.PullAllAsync(user);

        // The loser renamed it offline earlier; it shows its own name until it pulls.
        await loser.PushCollectionsAsync(user, [Upsert(id, "Older", T0.AddMinutes(1))]);
        var (changes, _) = await loser.PullAllAsync(user, token);

        Assert.Equal("Newer", Assert.Single(changes).GetProperty("collection").Str("name"));
    }

    [Fact]
    public async Task ListingPagesThroughEveryLiveCollectionOnce()
    {
        var user = await UserOwningAsync();
        using var device = _db.Device(user);
        var ids = Enumerable.Range(0, 7).Select(_ => Guid.NewGuid()).ToArray();
        await device.PushCollectionsAsync(user, [.. ids.Select((id, i) => Upsert(id, $"c{i}", T0))]);

        var listed = await device.ListCollectionsAsync(user, pageSize: 3);

        Assert.Equal(ids.Select(i => i.ToString("D")).Order(), listed.Select(c => c.Str("id")).Order());
    }

    [Fact]
    public async Task APushPastTheCollectionBoundIsRefusedWholeNamingTheSettingWhileDeletionsStillPass()
    {
        var user = await UserOwningAsync();
        using var device = _bounded.CreateClient().WithToken(TestTokens.For(user));
        var ids = Enumerable.Range(0, 4).Select(_ => Guid.NewGuid()).ToArray();
        await device.PushCollectionsAsync(user, [Upsert(ids[0], "a", T0), Upsert(ids[1], "b", T0), Upsert(ids[2], "c", T0)]);

        var refused = await device.PushCollectionsAsync(user, [Upsert(ids[0], "a2", T0.AddMinutes(1)), Upsert(ids[3], "d", T0)], expect: 409);
        var deletion = await device.PushCollectionsAsync(user, [DeleteCollection(ids[1], T0.AddMinutes(1))]);
        var afterRoom = await device.PushCollectionsAsync(user, [Upsert(ids[3], "d", T0)]);

        Assert.Equal("Sync:MaxCollectionsPerUser", refused.Str("setting"));
        Assert.Contains("Sync:MaxCollectionsPerUser", refused.Str("detail"), StringComparison.Ordinal);
        Assert.Equal(["applied"], deletion.Statuses());
        Assert.Equal(["applied"], afterRoom.Statuses());
        Assert.Equal("a", (await device.GetCollectionAsync(user, ids[0].ToString())).Str("name"));
    }

    [Fact]
    public async Task APushPastTheBooksOfACollectionIsRefusedWholeNamingTheSetting()
    {
        var user = await UserOwningAsync(1, 2, 3, 4, 5);
        using var device = _bounded.CreateClient().WithToken(TestTokens.For(user));
        var id = Guid.NewGuid();
        await device.PushCollectionsAsync(user, [Upsert(id, "Full", T0), AddBooks(id, T0, 1, 2, 3)]);

        var refused = await device.PushCollectionsAsync(user, [AddBooks(id, T0.AddMinutes(1), 4, 5)], expect: 409);

        Assert.Equal("Sync:MaxBooksPerCollection", refused.Str("setting"));
        var books = (await device.GetCollectionAsync(user, id.ToString())).Books();
        Assert.Equal(new long[] { 1, 2, 3 }, books);
    }

    [Fact]
    public async Task EachBrokenOperationIsRejectedAloneWithAReasonNamingItsField()
    {
        var user = await UserOwningAsync(3);
        using var device = _db.Device(user);
        var id = Guid.NewGuid();
        var push = await device.PushRawCollectionsAsync(user, $$"""
            {"changes":[
              {"op":"upsert","collectionId":"not-a-uuid","name":"x","modifiedAt":"2026-01-01T00:00:00Z"},
              {"op":"upsert","collectionId":"00000000-0000-0000-0000-000000000000","name":"x","modifiedAt":"2026-01-01T00:00:00Z"},
              {"op":"rename","collectionId":"{{id}}","name":"x","modifiedAt":"2026-01-01T00:00:00Z"},
              {"op":"upsert","collectionId":"{{id}}","name":"","modifiedAt":"2026-01-01T00:00:00Z"},
              {"op":"upsert","collectionId":"{{id}}","name":"{{new string('n', 257)}}","modifiedAt":"2026-01-01T00:00:00Z"},
              {"op":"upsert","collectionId":"{{id}}","name":"a\ud800b","modifiedAt":"2026-01-01T00:00:00Z"},
              {"op":"upsert","collectionId":"{{id}}","name":"x"},
              {"op":"upsert","collectionId":"{{id}}","name":"x","modifiedAt":"2026-01-01T00:00:00"},
              {"op":"addBooks","collectionId":"{{id}}","modifiedAt":"2026-01-01T00:00:00Z"},
              {"op":"addBooks","collectionId":"{{id}}","bookNos":["3","007"],"modifiedAt":"2026-01-01T00:00:00Z"},
              {"op":"upsert","collectionId":"{{id}}","name":"ok","modifiedAt":"2026-01-01T00:00:00Z"},
              {"op":"addBooks","collectionId":"{{id}}","bookNos":["9"],"modifiedAt":"2026-01-01T00:00:01Z"},
              {"op":"addBooks","collectionId":"{{Guid.NewGuid()}}","bookNos":["3"],"modifiedAt":"2026-01-01T00:00:01Z"},
              null
            ]}
            """, 200);

        var results = push.GetProperty("results").EnumerateArray().ToArray();
        string[] fields = ["collectionId", "collectionId", "op", "name", "name", "name", "modifiedAt", "modifiedAt", "bookNos", "bookNos[1]"];
        for (var i = 0; i < fields.Length; i++)
        {
            Assert.Equal("rejected", results[i].Str("status"));
            Assert.StartsWith(fields[i] + ":", results[i].Str("reason"), StringComparison.Ordinal);
        }

        Assert.Equal("applied", results[10].Str("status"));
        Assert.Equal(("rejected", "bookNos: book 9 is not in the user's library."), (results[11].Str("status"), results[11].Str("reason")));
        Assert.StartsWith("collectionId: no collection", results[12].Str("reason"), StringComparison.Ordinal);
        Assert.Equal("rejected", results[13].Str("status"));
    }

    [Theory]
    [InlineData("/v1/users/{0}/collections/not-a-uuid", "collectionId")]
    [InlineData("/v1/users/{0}/collections?pageSize=0", "pageSize")]
    [InlineData("/v1/users/{0}/collections?pageSize=101", "pageSize")]
    [InlineData("/v1/users/{0}/collections?cursor=zzz", "cursor")]
    [InlineData("/v1/users/x/collections", "userNo")]
    public async Task BadInputOfTheReadsIsA400NamingTheField(string path, string field)
    {
        var user = await UserOwningAsync();
        using var device = _db.Device(user);

        var problem = await device.GetJsonAsync(string.Format(System.Globalization.CultureInfo.InvariantCulture, path, user), 400);

        Assert.True(problem.GetProperty("errors").TryGetProperty(field, out _), problem.GetRawText());
    }

    [Fact]
    public async Task ACollectionNameOfOnlyWhiteSpaceIsRejectedNamingTheNameAndNothingIsStored()
    {
        var user = await UserOwningAsync();
        using var device = _db.Device(user);

        var push = await device.PushCollectionsAsync(user, [Upsert(Guid.NewGuid(), " \t\u00a0 ", T0)]);

        var result = Assert.Single(push.GetProperty("results").EnumerateArray());
        Assert.Equal("rejected", result.Str("status"));
        Assert.StartsWith("name: required", result.Str("reason"), StringComparison.Ordinal);
        Assert.Empty(await device.ListCollectionsAsync(user));
    }

    [Fact]
    public async Task BadBodiesOfThePushAreA400OrA413AndAnUnknownCollectionA404()
    {
        var user = await UserOwningAsync();
        using var device = _db.Device(user);

        var notJson = await device.PushRawCollectionsAsync(user, "{\"changes\":", 400);
        var noChanges = await device.PushRawCollectionsAsync(user, "{}", 400);
        var tooMany = await device.PushCollectionsAsync(user, [.. Enumerable.Range(0, 501).Select(_ => DeleteCollection(Guid.NewGuid(), T0))], expect: 413);
        var missing = await device.GetCollectionAsync(user, Guid.NewGuid().ToString(), 404);

        Assert.True(notJson.GetProperty("errors").TryGetProperty("body", out _));
        Assert.True(noChanges.GetProperty("errors").TryGetProperty("changes", out _));
        Assert.True(tooMany.GetProperty("errors").TryGetProperty("changes", out _));
        Assert.Equal(404, missing.GetProperty("status").GetInt32());
    }

    [Fact]
    public async Task TheOpenApiDocumentDescribesTheCollectionCallsAndTheOperationsFields()
    {
        var document = await _db.Factory.CreateClient().GetJsonAsync("/openapi/v1.json", 200);

        var paths = document.GetProperty("paths");
        Assert.True(paths.GetProperty("/v1/users/{userNo}/collections").TryGetProperty("get", out _));
        Assert.True(paths.GetProperty("/v1/users/{userNo}/collections/{collectionId}").TryGetProperty("get", out _));
        Assert.True(paths.GetProperty("/v1/users/{userNo}/collections/changes").TryGetProperty("post", out _));
        var op = document.GetProperty("components").GetProperty("schemas").GetProperty("PushedCollectionOpJson").GetProperty("properties");
        Assert.Contains("string", op.GetProperty("name").GetProperty("type").EnumerateArray().Select(t => t.GetString()));
        Assert.Equal("date-time", op.GetProperty("modifiedAt").GetProperty("format").GetString());
    }

    [Fact]
    public async Task AnotherUsersCollectionsAreForbidden()
    {
        var user = await UserOwningAsync();
        using var other = _db.Device(_db.NewUser());

        var problem = await other.GetJsonAsync($"/v1/users/{user}/collections", 403);

        Assert.Equal(403, problem.GetProperty("status").GetInt32());
    }
}
