using Kobo.Sync.DevServer.Demo;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.DevServer.Demo;

public sealed class DemoSeederTests(DemoDatabase db) : IClassFixture<DemoDatabase>
{
    [Fact]
    public void TheSeedLoadsTheSameCountsOnEveryRun()
    {
        Assert.True(db.Seed.Seeded);
        Assert.Equal(DemoData.UserCount, db.Seed.Users);
        Assert.Equal(DemoData.BookCount, db.Seed.Books);
        Assert.Equal(DemoData.TotalHighlights, db.Seed.Highlights);
        Assert.Equal(DemoRows.Generate().Ownerships.Count, db.Seed.Ownerships);
        Assert.True(db.Seed.Elapsed < TimeSpan.FromSeconds(10), $"seeding took {db.Seed.Elapsed}");
    }

    [Fact]
    public async Task TheStoreHoldsWhatTheSeedReports()
    {
        Assert.Equal(db.Seed.Users, await CountAsync("SELECT count(*) FROM users"));
        Assert.Equal(db.Seed.Books, await CountAsync("SELECT count(*) FROM books"));
        Assert.Equal(db.Seed.Ownerships, await CountAsync("SELECT count(*) FROM users_books"));
        Assert.Equal(db.Seed.Highlights, await CountAsync("SELECT count(*) FROM highlights"));
        Assert.Equal(0, await CountAsync("""
            SELECT count(*) FROM (SELECT DISTINCT user_no, book_no FROM highlights) h
            WHERE NOT EXISTS (SELECT 1 FROM users_books o WHERE o.user_no = h.user_no AND o.book_no = h.book_no)
            """));
    }

    [Fact]
    public async Task TheHeavyUserHoldsTheMostHighlightsOverManyBooks()
    {
        Assert.Equal(DemoData.HeavyUserHighlights, await CountAsync($"SELECT count(*) FROM highlights WHERE user_no = {db.HeavyUser.Value}"));
        Assert.True(await CountAsync($"SELECT count(DISTINCT book_no) FROM highlights WHERE user_no = {db.HeavyUser.Value}") >= 50);
        Assert.Equal(db.HeavyUser.Value, await CountAsync("SELECT user_no FROM highlights GROUP BY user_no ORDER BY count(*) DESC LIMIT 1"));
        Assert.True(DemoData.HeavyUserHighlights >= 5_000);
    }

    [Fact]
    public async Task HighlightsFollowTheLongTailMostUsersHoldingFew()
    {
        var oneOnly = DemoData.HighlightsPerUser.Count(n => n == 1);
        Assert.True(oneOnly > DemoData.UserCount / 2, $"{oneOnly} users with one highlight");
        Assert.Equal(oneOnly, await CountAsync("SELECT count(*) FROM (SELECT user_no FROM highlights GROUP BY user_no HAVING count(*) = 1) s"));
    }

    [Fact]
    public async Task ASecondRunFindsUsersAndSeedsNothing()
    {
        var again = await new DemoSeeder(db.DataSource).SeedAsync(TestTimeout.Token);

        Assert.False(again.Seeded);
        Assert.Equal(db.Seed.Highlights, await CountAsync("SELECT count(*) FROM highlights"));
    }

    private async Task<long> CountAsync(string sql)
    {
        await using var command = db.DataSource.CreateCommand(sql);
        return (long)(await command.ExecuteScalarAsync(TestTimeout.Token))!;
    }
}
