using System.Net.Http.Json;
using System.Text.Json;
using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Stores;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.CollectionCalls;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;
using CollectionOp = Kobo.Sync.Contracts.Grpc.V1.CollectionOp;
using PushCollectionChangesRequest = Kobo.Sync.Contracts.Grpc.V1.PushCollectionChangesRequest;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// Collections in the byte budget: the store reads only the book lists a page can send, paging still
/// delivers each collection once, and a push's answer carries the touched collections that fit and the
/// ids of the rest.
/// </summary>
public sealed class CollectionPageBytesTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    private async Task<(long User, Guid[] Ids)> UserWithFullCollectionsAsync(int count, int booksEach = 20)
    {
        var user = db.NewUser();
        var books = Enumerable.Range(1, booksEach).Select(b => (long)b).ToArray();
        await using (var catalogue = db.DataSource.CreateCommand(
            $"INSERT INTO books (book_no, title, author) SELECT n, 'Book ' || n, 'Author ' || n FROM generate_series(1, {booksEach}) n ON CONFLICT DO NOTHING"))
        {
            await catalogue.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        foreach (var book in books)
        {
            await db.OwnAsync(user, book);
        }

        var ids = Enumerable.Range(0, count).Select(_ => Guid.NewGuid()).ToArray();
        using var device = db.Device(user);
        var setup = await device.PushCollectionsAsync(user, [.. ids.SelectMany(id => new[] { Upsert(id, "full", T0), AddBooks(id, T0, books) })]);
        Assert.All(setup.Statuses(), s => Assert.Equal("applied", s));
        return (user, ids);
    }

    [Fact]
    public async Task TheStoreStopsReadingCollectionsPastTheBudget()
    {
        var (user, _) = await UserWithFullCollectionsAsync(10);

        var rows = await new PostgresSyncStore(db.DataSource).ReadChangesAsync(new UserNo(user), SyncPosition.Start, 11, maxBytes: 2_000, TestTimeout.Token);

        Assert.InRange(rows!.Collections.Count, 2, 9);
        Assert.True(rows.Collections.Sum(c => SyncChange.Of(c.Collection).PageBytes()) > 2_000);
    }

    [Fact]
    public async Task TheLibraryStoreStopsReadingCollectionsPastTheBudgetToo()
    {
        // A Kobo e-reader's library sync page: a user at the bounds (1,000 collections of 5,000 books) must
        // not make every page read 101 whole book lists it cannot send.
        var (user, _) = await UserWithFullCollectionsAsync(10);

        var rows = await new PostgresLibraryStore(db.DataSource)
            .ReadChangesAsync(new UserNo(user), SyncPosition.Start, 11, maxBytes: 2_000, TestTimeout.Token);

        Assert.InRange(rows!.Collections.Count, 2, 9);
    }

    [Fact]
    public async Task PagesOfLargeCollectionsStayWithinTheBudgetAndDeliverEachOnce()
    {
        var (user, ids) = await UserWithFullCollectionsAsync(40);
        using var service = db.ServiceWith(new() { ["Paging:MaxPageBytes"] = "16384" });
        using var device = service.CreateClient().WithToken(TestTokens.For(user));

        var (changes, _) = await device.PullAllAsync(user, pageSize: 1_000);
        var page = await device.PullPageAsync(user, null, pageSize: 1_000);

        Assert.Equal(ids.Select(i => i.ToString("D")).Order(), changes.Where(c => c.Str("kind") == "collection").Select(c => c.Str("id")).Order());
        Assert.True(page.GetProperty("hasMore").GetBoolean());
        Assert.InRange(page.GetProperty("changes").GetArrayLength(), 2, 39);
    }

    [Fact]
    public async Task APushTouchingMoreCollectionsThanTheBudgetHoldsAnswersThoseThatFitAndTheIdsOfTheRest()
    {
        // 40 renames of collections of 100 books: under 200 bytes each pushed, about 800 each answered,
        // 30 KB in all, twice the budget.
        var (user, ids) = await UserWithFullCollectionsAsync(40, booksEach: 100);
        using var service = db.ServiceWith(new() { ["Paging:MaxPageBytes"] = "16384" });
        using var device = service.CreateClient().WithToken(TestTokens.For(user));

        using var response = await device.PostAsJsonAsync(
            $"/v1/users/{user}/collections/changes", new { changes = ids.Select(id => Upsert(id, "renamed", T0.AddMinutes(1))).ToArray() }, TestTimeout.Token);
        var bytes = await response.Content.ReadAsByteArrayAsync(TestTimeout.Token);
        var answer = JsonDocument.Parse(bytes).RootElement;

        Assert.Equal(200, (int)response.StatusCode);
        Assert.All(answer.Statuses(), s => Assert.Equal("applied", s));
        var answered = answer.GetProperty("collections").EnumerateArray().ToArray();
        var omitted = answer.GetProperty("omittedCollectionIds").EnumerateArray().Select(e => e.GetString()!).ToArray();
        Assert.InRange(answered.Length, 2, 30);
        Assert.All(answered, c => Assert.Equal("renamed", c.Str("name")));
        Assert.All(answered, c => Assert.Equal(100, c.Books().Length));
        Assert.Equal(ids.Select(i => i.ToString("D")), answered.Select(c => c.Str("id")).Concat(omitted));
        Assert.InRange(bytes.Length, 1, 16384 + (40 * 128));

        // Each omitted one is there to read, as the push left it.
        var last = await device.GetCollectionAsync(user, omitted[^1]);
        Assert.Equal("renamed", last.Str("name"));
    }

    [Fact]
    public async Task OverGrpcAPushAnswersTheCollectionsThatFitAndTheIdsOfTheRest()
    {
        var (user, ids) = await UserWithFullCollectionsAsync(40, booksEach: 100);
        using var host = new SyncGrpcTestHost(db.ConnectionString, settings: new Dictionary<string, string?> { ["Paging:MaxPageBytes"] = "16384" });
        var request = new PushCollectionChangesRequest { UserNo = user };
        request.Changes.AddRange(ids.Select(id => new CollectionOp
        {
            Op = "upsert", CollectionId = id.ToString(), Name = "renamed", ModifiedAt = Timestamp.FromDateTimeOffset(T0.AddMinutes(1)),
        }));

        var answer = await host.Client.Sync.PushCollectionChangesAsync(
            request, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(user)), cancellationToken: TestTimeout.Token);

        Assert.All(answer.Results, r => Assert.Equal("applied", r.Status));
        Assert.InRange(answer.Collections.Count, 2, 30);
        Assert.Equal(ids.Select(i => i.ToString("D")), answer.Collections.Select(c => c.CollectionId).Concat(answer.OmittedCollectionIds));
        Assert.InRange(answer.CalculateSize(), 1, 16384 + (40 * 128));
    }
}
