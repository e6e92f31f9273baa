using System.Globalization;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Apis.Support;

/// <summary>
/// Highlights as large as a device may store (10,000 characters of text and 10,000 of note), written
/// straight into a test's own database: pushing megabytes through the API would only slow the tests.
/// </summary>
public static class LargeHighlights
{
    public const int TextLength = 10_000;

    /// <summary>What each one measures as a page item: text and note, plus generously its id and fixed fields.</summary>
    public const int ItemBytes = (2 * TextLength) + 1_024;

    /// <summary>
    /// Stores <paramref name="count"/> large highlights of <paramref name="user"/> in books 1 to 3, with
    /// change numbers 2, 4, 6, ..., and grants books 1 to 20 with odd numbers in between (19, 39, ...),
    /// so the delta pull merges the two kinds. Returns the highlight ids.
    /// </summary>
    public static async Task<HashSet<string>> SeedAsync(NpgsqlDataSource dataSource, long user, int count)
    {
        var u = user.ToString(CultureInfo.InvariantCulture);
        var n = count.ToString(CultureInfo.InvariantCulture);
        await using var batch = new NpgsqlBatch(await dataSource.OpenConnectionAsync(TestTimeout.Token))
        {
            BatchCommands =
            {
                new($"UPDATE users SET change_seq = greatest(2 * {n}, 400) WHERE user_no = {u}"),
                new($"""
                    INSERT INTO highlights (id, user_no, book_no, text, start, length, color, note, created_at, modified_at, seq, version)
                    SELECT format('highlights/users%s-ebooks/%s/k%s', {u}, 1 + i % 3, lpad(i::text, 5, '0')), {u}, 1 + i % 3,
                           repeat('x', {TextLength}), 0, 1, 'yellow', repeat('n', {TextLength}), now(), now(), 2 * i, 1
                    FROM generate_series(1, {n}) i
                    """),
                new($"""
                    INSERT INTO users_books (user_no, book_no, acquired_at, seq, modified_at)
                    SELECT {u}, b, now(), 20 * b - 1, now() FROM generate_series(1, 20) b
                    """),
            },
        };
        await using (batch.Connection)
        {
            await batch.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        return Enumerable.Range(1, count)
            .Select(i => $"highlights/users{u}-ebooks/{1 + (i % 3)}/k{i:D5}")
            .ToHashSet(StringComparer.Ordinal);
    }
}
