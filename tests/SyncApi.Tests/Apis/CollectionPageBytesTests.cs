using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Stores;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.CollectionCalls;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>Collections in the pull's byte budget: the store reads only the book lists a page can send, and paging still delivers each collection once.</summary>
public sealed class CollectionPageBytesTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    private async Task<(long User, Guid[] Ids)> UserWithFullCollectionsAsync(int count)
    {
        var user = db.NewUser();
        var books = Enumerable.Range(1, 20).Select(b => (long)b).ToArray();
        foreach (var book in books)
        {
            await db.OwnAsync(user, book);
        }

        var ids = Enumerable.Range(0, count).Select(_ => Guid.NewGuid()).ToArray();
        using var device = db.Device(user);
        await device.PushCollectionsAsync(user, [.. ids.SelectMany(id => new[] { Upsert(id, "full", T0), AddBooks(id, T0, books) })]);
        return (user, ids);
    }

    [Fact]
    public async Task TheStoreStopsReadingCollectionsPastTheBudget()
    {
        var (user, _) = await UserWithFullCollectionsAsync(10);

        var rows = await new PostgresSyncStore(db.DataSource).ReadChangesAsync(new UserNo(user), SyncPosition.Start, 11, maxBytes: 2_000, TestTimeout.Token);

        Assert.InRange(rows!.Collections.Count, 2, 9);
        Assert.True(rows.Collections.Sum(c => PageBudget.SizeOf(SyncChange.Of(c.Collection))) > 2_000);
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
}
