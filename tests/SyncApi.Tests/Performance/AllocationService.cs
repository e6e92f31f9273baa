using System.Net.Http.Headers;
using System.Net.Http.Json;
using Kobo.Sync.Storage.Schema;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Performance;

/// <summary>
/// A class fixture for the allocation budgets: a database of its own with <see cref="Users"/> readers,
/// each owning books 1..5 and holding <see cref="HighlightsPerBook"/> highlights on each of books 1..3
/// (several pages of a user's highlights and of a book's, at the device reads' page of 10), and the
/// whole service on it over real sockets, with its production logging (one request line each).
/// </summary>
public sealed class AllocationService : PostgresDatabase
{
    public const int Users = 200;
    public const int HighlightBooks = 3;
    public const int HighlightsPerBook = 12;
    public const string Device = "budget-device";

    private SyncGrpcTestHost? _host;

    internal SyncGrpcTestHost Host => _host ?? throw new InvalidOperationException("The service is not started yet.");

    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        await new SchemaMigrator(DataSource).MigrateAsync(TestTimeout.Token);
        await using (var command = DataSource.CreateCommand($"""
            INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, {Users}) n;
            INSERT INTO books (book_no, title, author) SELECT n, 'Book ' || n, 'Author ' || n FROM generate_series(1, 5) n;
            INSERT INTO users_books (user_no, book_no, acquired_at, seq, modified_at)
                SELECT u, b, now(), b, now() FROM generate_series(1, {Users}) u, generate_series(1, 5) b;
            UPDATE users SET change_seq = 5;
            """))
        {
            await command.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        _host = new SyncGrpcTestHost(ConnectionString);
        await SeedHighlightsAsync();
    }

    /// <summary>Each user's highlights, pushed as a device would, so every count and version is the service's own.</summary>
    private async Task SeedHighlightsAsync()
    {
        var at = DateTimeOffset.UtcNow.AddDays(-30);
        using var rest = new HttpClient { BaseAddress = Host.RestAddress };
        for (var user = 1; user <= Users; user++)
        {
            var changes = Enumerable.Range(0, HighlightBooks * HighlightsPerBook).Select(i => new
            {
                op = "upsert",
                bookNo = (1 + (i / HighlightsPerBook)).ToString(System.Globalization.CultureInfo.InvariantCulture),
                key = $"h{i:D2}",
                text = $"a highlighted passage, number {i} of reader {user}",
                start = 100 * i,
                length = 40,
                color = "yellow",
                note = i % 4 == 0 ? "a note on it" : null,
                modifiedAt = at,
            });
            using var request = new HttpRequestMessage(HttpMethod.Post, $"/v1/users/{user}/changes")
            {
                Content = JsonContent.Create(new { changes }),
            };
            request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(user, Device));
            using var response = await rest.SendAsync(request, TestTimeout.Token);
            var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
            Assert.True(response.IsSuccessStatusCode, $"seeding reader {user}: {(int)response.StatusCode} {body}");
        }
    }

    /// <summary>The stored text of each user's highlight <paramref name="key"/> in <paramref name="book"/>.</summary>
    internal async Task<Dictionary<long, string>> StoredTextsAsync(long book, string key)
    {
        var texts = new Dictionary<long, string>();
        await using var command = DataSource.CreateCommand("SELECT user_no, text FROM highlights WHERE book_no = $1 AND id LIKE '%/' || $2");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = book });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = key });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        while (await reader.ReadAsync(TestTimeout.Token))
        {
            texts[reader.GetInt64(0)] = reader.GetString(1);
        }

        return texts;
    }

    public override async Task DisposeAsync()
    {
        _host?.Dispose();
        await base.DisposeAsync();
    }
}
