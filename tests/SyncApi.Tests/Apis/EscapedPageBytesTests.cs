using System.Globalization;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// A page's byte budget bounds the bytes sent, escapes included: highlights whose text is all <c>&lt;</c>
/// (which JSON writes as six bytes, <c>\u003C</c>) come in pages no larger than the budget over the REST
/// pull and the highlight pages, where a budget in stored bytes once let an answer run to six times its size.
/// </summary>
public sealed class EscapedPageBytesTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private const int Budget = 65_536;
    private const int TextLength = 2_000;
    private const int Highlights = 60;

    // The page's own fields (cursor, token, names): beyond the items the budget counts.
    private const int PageFields = 4_096;

    private readonly SyncServiceDatabase _db;
    private readonly SyncApiFactory _service;

    public EscapedPageBytesTests(SyncServiceDatabase db)
    {
        _db = db;
        _service = db.ServiceWith(new() { ["Paging:MaxPageBytes"] = Budget.ToString(CultureInfo.InvariantCulture) });
    }

    public void Dispose() => _service.Dispose();

    [Fact]
    public async Task PullPagesAndHighlightPagesOfEscapedTextStayWithinTheBudget()
    {
        var user = _db.NewUser();
        await SeedEscapedAsync(user, book: 1);
        using var device = _service.CreateClient().WithToken(TestTokens.For(user));

        foreach (var path in new[] { $"/v1/users/{user}/changes?pageSize=100", $"/v1/users/{user}/highlights?pageSize=100" })
        {
            using var response = await device.GetAsync(new Uri(path, UriKind.Relative), TestTimeout.Token);
            var body = await response.Content.ReadAsByteArrayAsync(TestTimeout.Token);

            Assert.Equal(200, (int)response.StatusCode);
            Assert.InRange(body.Length, 1, Budget + PageFields);
            using var page = JsonDocument.Parse(body);
            var items = page.RootElement.GetProperty(path.Contains("/changes", StringComparison.Ordinal) ? "changes" : "items").GetArrayLength();
            Assert.InRange(items, 2, Highlights - 1);
        }
    }

    private async Task SeedEscapedAsync(long user, long book, int count = Highlights, int textLength = TextLength)
    {
        var u = user.ToString(CultureInfo.InvariantCulture);
        var b = book.ToString(CultureInfo.InvariantCulture);
        await using var batch = new NpgsqlBatch(await _db.DataSource.OpenConnectionAsync(TestTimeout.Token))
        {
            BatchCommands =
            {
                new($"UPDATE users SET change_seq = greatest(change_seq, {count}) WHERE user_no = {u}"),
                new($"""
                    INSERT INTO highlights (id, user_no, book_no, text, start, length, color, created_at, modified_at, seq, version)
                    SELECT format('highlights/users%s-ebooks/%s/e%s', {u}, {b}, lpad(i::text, 4, '0')), {u}, {b},
                           repeat('<', {textLength}), i, 1, 'yellow', now(), now(), i, 1
                    FROM generate_series(1, {count}) i
                    """),
            },
        };
        await using (batch.Connection)
        {
            await batch.ExecuteNonQueryAsync(TestTimeout.Token);
        }
    }
}
