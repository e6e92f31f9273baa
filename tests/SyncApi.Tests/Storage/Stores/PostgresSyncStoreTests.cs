using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage.Sql;
using Kobo.Sync.Storage.Stores;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Storage.Stores;

/// <summary>The sync feed on the demo data set: a first sync of the heavy user, and the plan that keeps every page's cost flat.</summary>
public sealed class PostgresSyncStoreTests(DemoDatabase db) : IClassFixture<DemoDatabase>
{
    [Fact]
    public async Task AFirstSyncOfTheHeavyUserWalksEveryHighlightAndOwnershipOnceInPages()
    {
        var store = new PostgresSyncStore(db.DataSource);
        var position = SyncPosition.Start;
        var highlights = new HashSet<string>(StringComparer.Ordinal);
        var books = new HashSet<long>();
        while (true)
        {
            var rows = await store.ReadChangesAsync(db.HeavyUser, position, 1_000, PageBudget.DefaultMaxBytes, TestTimeout.Token);
            Assert.NotNull(rows);
            foreach (var (seq, state) in rows.Highlights)
            {
                Assert.True(highlights.Add(state.Id.ToString()));
                position = position with { HighlightSeq = seq, HighlightId = state.Id.ToString() };
            }

            foreach (var (seq, state) in rows.Entitlements)
            {
                Assert.True(books.Add(state.BookNo));
                position = position with { EntitlementSeq = seq, EntitlementBook = state.BookNo };
            }

            if (rows.Highlights.Count == 0 && rows.Entitlements.Count == 0)
            {
                break;
            }
        }

        Assert.Equal(await db.CountAsync("SELECT count(*) FROM highlights WHERE user_no = $1", db.HeavyUser.Value), highlights.Count);
        Assert.Equal(await db.CountAsync("SELECT count(*) FROM users_books WHERE user_no = $1", db.HeavyUser.Value), books.Count);
    }

    [Fact]
    public async Task TheDemoSeedCountsEachUsersHighlightHoldings()
    {
        // The quota reads these counters; a seeded user whose counters said 0 could store past it.
        Assert.Equal(0, await db.CountAsync("""
            SELECT count(*) FROM users u
            LEFT JOIN (SELECT user_no, count(*) AS n, sum(octet_length(text) + coalesce(octet_length(note), 0)) AS bytes
                       FROM highlights WHERE deleted_at IS NULL GROUP BY user_no) h ON h.user_no = u.user_no
            WHERE u.highlight_count <> coalesce(h.n, 0) OR u.highlight_bytes <> coalesce(h.bytes, 0)
            """));
        Assert.Equal(
            await db.CountAsync("SELECT count(*) FROM highlights WHERE user_no = $1", db.HeavyUser.Value),
            await db.CountAsync("SELECT highlight_count FROM users WHERE user_no = $1", db.HeavyUser.Value));
    }

    [Fact]
    public async Task APageDeepInTheHeavyUsersFeedIsAKeysetIndexScanWithoutASort()
    {
        // The demo data is bulk-loaded with seq 0, so the deep position is (0, the 5,001st id).
        const long deep = 0;
        string lastId;
        await using (var command = db.DataSource.CreateCommand("SELECT id FROM highlights WHERE user_no = $1 ORDER BY seq, id OFFSET 5000 LIMIT 1"))
        {
            command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = db.HeavyUser.Value });
            lastId = (string)(await command.ExecuteScalarAsync(TestTimeout.Token))!;
        }

        await using var explain = db.DataSource.CreateCommand("EXPLAIN (FORMAT TEXT) " + HighlightSyncQueries.HighlightChanges);
        explain.Parameters.Add(new NpgsqlParameter<long> { TypedValue = db.HeavyUser.Value });
        explain.Parameters.Add(new NpgsqlParameter<long> { TypedValue = deep });
        explain.Parameters.Add(new NpgsqlParameter<string> { TypedValue = lastId });
        explain.Parameters.Add(new NpgsqlParameter<int> { TypedValue = 101 });
        explain.Parameters.Add(new NpgsqlParameter<long> { TypedValue = PageBudget.DefaultMaxBytes });
        var plan = new List<string>();
        await using (var reader = await explain.ExecuteReaderAsync(TestTimeout.Token))
        {
            while (await reader.ReadAsync(TestTimeout.Token))
            {
                plan.Add(reader.GetString(0));
            }
        }

        var text = string.Join('\n', plan);
        Assert.Contains("Index Scan using highlights_changes on highlights", text, StringComparison.Ordinal);
        Assert.Matches(@"Index Cond: \(\(user_no = .+\) AND \(ROW\(seq, id\) > ROW\(.+\)\)\)", text);
        Assert.DoesNotContain("Sort", text, StringComparison.Ordinal);
        Assert.DoesNotContain("Seq Scan", text, StringComparison.Ordinal);
    }
}
