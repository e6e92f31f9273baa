using Kobo.Sync.DevServer.Demo;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Storage.Coalescing;
using Kobo.Sync.Storage.Sql;
using Kobo.Sync.Storage.Stores;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Storage.Stores;

public sealed class PostgresDeviceReadStoreTests(DemoDatabase db) : IClassFixture<DemoDatabase>
{
    private readonly ResilientDeviceReadStore _store = new(new PostgresDeviceReadStore(new ReadCoalescer(db.DataSource, new ReadCoalescingOptions())), TestPipelines.Default());

    [Fact]
    public async Task AUserIsFoundByNumberWithNameCountryAndUtcCreationTime()
    {
        var user = await _store.FindUserAsync(new UserNo(12), TestTimeout.Token);

        Assert.NotNull(user);
        Assert.Equal(12, user.UserNo);
        Assert.False(string.IsNullOrEmpty(user.Name));
        Assert.Equal(TimeSpan.Zero, user.CreatedAt.Offset);
    }

    [Fact]
    public async Task AnUnknownUserIsNullForBothReads()
    {
        var unknown = new UserNo(DemoData.UserCount + 1);

        Assert.Null(await _store.FindUserAsync(unknown, TestTimeout.Token));
        Assert.Null(await _store.ListHighlightsAsync(unknown, HighlightRange.ForUser(unknown), 10, TestTimeout.Token));
    }

    [Fact]
    public async Task AUserWithNothingInTheRangeGetsAnEmptyList()
    {
        var user = new UserNo(12);

        var page = await _store.ListHighlightsAsync(user, HighlightRange.ForBook(user, new BookNo(DemoData.BookCount + 7)), 10, TestTimeout.Token);

        Assert.NotNull(page);
        Assert.Empty(page);
    }

    [Fact]
    public async Task UserTwelvesReadsNeverReturnUserOneHundredTwentyThreesHighlights()
    {
        var user = new UserNo(12);

        var page = await _store.ListHighlightsAsync(user, HighlightRange.ForUser(user), 1000, TestTimeout.Token);

        Assert.NotNull(page);
        Assert.Equal(DemoData.HighlightsPerUser[11], page.Count);
        Assert.All(page, h => Assert.StartsWith(HighlightId.UserPrefix(user), h.Id, StringComparison.Ordinal));
        Assert.NotEmpty(await AllAsync(new UserNo(123), HighlightRange.ForUser(new UserNo(123))));
    }

    [Fact]
    public async Task BookFiveReadsNeverReturnBookFiftySixsHighlights()
    {
        var user = new UserNo(12);

        var book5 = await AllAsync(user, HighlightRange.ForBook(user, new BookNo(5)));
        var book56 = await AllAsync(user, HighlightRange.ForBook(user, new BookNo(56)));

        Assert.NotEmpty(book5);
        Assert.NotEmpty(book56);
        Assert.All(book5, h => Assert.Equal(5, h.BookNo));
        Assert.All(book56, h => Assert.Equal(56, h.BookNo));
    }

    [Fact]
    public async Task KeysetPagesWalkEveryHighlightOfTheHeavyUserExactlyOnceInOrdinalOrder()
    {
        var user = db.HeavyUser;

        var all = await AllAsync(user, HighlightRange.ForUser(user), pageSize: 250);

        Assert.Equal(DemoData.HeavyUserHighlights, all.Count);
        Assert.Equal(all.Count, all.Select(h => h.Id).Distinct(StringComparer.Ordinal).Count());
        for (var i = 1; i < all.Count; i++)
        {
            Assert.True(string.CompareOrdinal(all[i - 1].Id, all[i].Id) < 0, $"{all[i - 1].Id} before {all[i].Id}");
        }

        Assert.True(all.Select(h => h.BookNo).Distinct().Count() >= 50);
        Assert.All(all, h =>
        {
            Assert.True(HighlightId.TryParse(h.Id, out var id));
            Assert.Equal(user, id.User);
            Assert.Equal(h.BookNo, id.Book.Value);
            Assert.Equal(h.Text.Length, h.Length);
            Assert.True(h.ModifiedAt >= h.CreatedAt);
        });
    }

    [Fact]
    public async Task TheHighlightsReadIsAPrimaryKeyIndexScanBoundedOnBothSides()
    {
        var user = db.HeavyUser;
        var range = HighlightRange.ForUser(user);
        await using var command = db.DataSource.CreateCommand("EXPLAIN (FORMAT TEXT) " + DeviceReadQueries.ListHighlights);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user.Value });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = range.After });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = range.Before });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = 10 });

        var plan = new List<string>();
        await using (var reader = await command.ExecuteReaderAsync(TestTimeout.Token))
        {
            while (await reader.ReadAsync(TestTimeout.Token))
            {
                plan.Add(reader.GetString(0));
            }
        }

        var text = string.Join('\n', plan);
        Assert.Contains("Index Scan using highlights_pkey on highlights", text, StringComparison.Ordinal);
        Assert.Matches(@"Index Cond: \(\(id > .+\) AND \(id < .+\)\)", text);
        Assert.Contains("using users_pkey on users", text, StringComparison.Ordinal);
        Assert.DoesNotContain("Seq Scan", text, StringComparison.Ordinal);
        Assert.DoesNotContain("Sort", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheSharedDemoDatabaseServesTheSameDataSet()
    {
        var shared = await SharedDemoDatabase.GetAsync();
        var store = new ResilientDeviceReadStore(new PostgresDeviceReadStore(new ReadCoalescer(shared.DataSource, new ReadCoalescingOptions())), TestPipelines.Default());

        var mine = await _store.FindUserAsync(new UserNo(123), TestTimeout.Token);
        var theirs = await store.FindUserAsync(new UserNo(123), TestTimeout.Token);

        Assert.Equal(mine, theirs);
        Assert.Equal(shared.ConnectionString, SharedDemoDatabase.ConnectionString);
    }

    private async Task<List<HighlightView>> AllAsync(UserNo user, HighlightRange range, int pageSize = 7)
    {
        var all = new List<HighlightView>();
        while (true)
        {
            var page = await _store.ListHighlightsAsync(user, range, pageSize, TestTimeout.Token);
            Assert.NotNull(page);
            all.AddRange(page);
            if (page.Count < pageSize)
            {
                return all;
            }

            range = range.ResumeAfter(page[^1].Id);
        }
    }
}
