using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using CsCheck;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;
using NpgsqlTypes;
using Xunit.Abstractions;
using PageBudget = Kobo.Sync.Domain.Requests.PageBudget;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Generated sets of highlights, from one character to the 10,000 of text and note allowed, in one-,
/// two-, three- and four-byte characters, with and without notes and locations, between ownership
/// changes, walked with generated page sizes up to 1,000 over REST and gRPC under a small byte budget
/// (16 KiB, so a large highlight passes it alone): every page holds at least one item and, past its first,
/// items that measure at most the budget together, and every highlight and book comes exactly once.
/// </summary>
public sealed class PageBytesFuzzTests(PageBytesFuzzTests.Database db, ITestOutputHelper output) : IClassFixture<PageBytesFuzzTests.Database>
{
    private const int Budget = 16 * 1024;

    private static readonly Gen<string> Text = Gen.Select(
        Gen.OneOf(1, 40, 700, 3_000, 6_000, 10_000),
        Gen.OneOf("a", "é", "€", "\U0001F600", "<", "a\u00e9\u20ac\U0001F600"),
        (length, unit) => string.Concat(Enumerable.Repeat(unit, Math.Max(1, length / unit.Length))));

    private static readonly Gen<PageCase> Cases = Gen.Select(
        Gen.Select(Text, Text.Null(), Gen.OneOf<string?>(null, """{"span":{"chapterProgress":0.5}}""", "{\"x\":\"" + new string('L', 4_000) + "\"}")).Array[1, 40],
        Gen.Int[0, 12],
        Gen.OneOf(1, 2, 3, 7, 100, 999, 1_000),
        (highlights, books, pageSize) => new PageCase(highlights, books, pageSize));

    [Fact]
    public async Task GeneratedLargeHighlightsArePagedWithinTheByteBudgetAndEachComesOnce()
    {
        using var rest = new HttpClient { BaseAddress = db.Host.RestAddress, Timeout = Timeout.InfiniteTimeSpan };
        var report = await FuzzRun.RunAsync(
            "page-bytes", Cases, 0..FuzzRun.Scaled(60), c => c.ToString(), (c, cancel) => CheckAsync(rest, c, cancel), concurrency: 4);
        output.WriteLine(report.ToString());
        Assert.True(report.Clean, report.ToString());
    }

    private async Task<string?> CheckAsync(HttpClient rest, PageCase c, CancellationToken cancellationToken)
    {
        var user = await db.SeedAsync(c, cancellationToken);
        var auth = new AuthenticationHeaderValue("Bearer", TestTokens.For(user));
        var expected = Enumerable.Range(0, c.Highlights.Length).Select(i => $"highlights/users{user}-ebooks/{1 + (i % 3)}/k{i:D3}").ToHashSet();

        // REST delta pull.
        var (ids, books) = (new List<string>(), new List<long>());
        string? token = null;
        for (var pages = 0; ; pages++)
        {
            if (pages > 200)
            {
                return "REST pull did not end";
            }

            using var request = new HttpRequestMessage(HttpMethod.Get, $"/v1/users/{user}/changes?pageSize={c.PageSize}" + (token is null ? string.Empty : "&since=" + Uri.EscapeDataString(token)));
            request.Headers.Authorization = auth;
            using var response = await rest.SendAsync(request, cancellationToken);
            var body = await response.Content.ReadAsByteArrayAsync(cancellationToken);
            if (!response.IsSuccessStatusCode)
            {
                return $"REST pull failed | {(int)response.StatusCode} {Encoding.UTF8.GetString(body)}";
            }

            using var page = JsonDocument.Parse(body);
            var changes = page.RootElement.GetProperty("changes").EnumerateArray().ToArray();
            var measured = changes.Sum(change => PageBudget.ItemOverheadBytes + Utf8(change, "id") + Utf8(change, "text") + Utf8(change, "note")
                + Utf8(change, "location") + Utf8(change, "title") + Utf8(change, "author"));
            if (changes.Length == 0 && page.RootElement.GetProperty("hasMore").GetBoolean())
            {
                return "REST pull: an empty page with more to come";
            }

            if (changes.Length > 1 && measured > Budget)
            {
                return $"REST pull: a page over the budget | {changes.Length} items measure {measured} bytes";
            }

            ids.AddRange(changes.Where(x => x.GetProperty("kind").GetString() == "highlight").Select(x => x.GetProperty("id").GetString()!));
            books.AddRange(changes.Where(x => x.GetProperty("kind").GetString() == "entitlement").Select(x => long.Parse(x.GetProperty("bookNo").GetString()!, System.Globalization.CultureInfo.InvariantCulture)));
            token = page.RootElement.GetProperty("syncToken").GetString();
            if (!page.RootElement.GetProperty("hasMore").GetBoolean())
            {
                break;
            }
        }

        if (Wrong("REST pull", expected, ids, c.Books, books) is { } restWrong)
        {
            return restWrong;
        }

        // gRPC delta pull.
        (ids, books) = ([], []);
        var since = string.Empty;
        for (var pages = 0; ; pages++)
        {
            if (pages > 200)
            {
                return "gRPC pull did not end";
            }

            var page = await db.Host.Client.UnaryAsync(
                "kobo.sync.v1.SyncService", "PullChanges", new PullChangesRequest { UserNo = user, Since = since, PageSize = c.PageSize },
                PullChangesResponse.Parser, metadata: SyncGrpcTestHost.As(user), cancellationToken: cancellationToken);
            var measured = page.Changes.Sum(change => change.ChangeCase switch
            {
                SyncChange.ChangeOneofCase.Highlight => PageBudget.ItemOverheadBytes + PageBudget.Utf8(change.Highlight.Id) + PageBudget.Utf8(change.Highlight.Text)
                    + PageBudget.Utf8(change.Highlight.Note) + PageBudget.Utf8(change.Highlight.Location),
                _ => PageBudget.ItemOverheadBytes, // at most what the service measures: it counts titles too
            });
            if (page.Changes.Count > 1 && measured > Budget)
            {
                return $"gRPC pull: a page over the budget | {page.Changes.Count} items measure {measured} bytes";
            }

            if (page.Changes.Count == 0 && page.HasMore)
            {
                return "gRPC pull: an empty page with more to come";
            }

            ids.AddRange(page.Changes.Where(x => x.ChangeCase == SyncChange.ChangeOneofCase.Highlight).Select(x => x.Highlight.Id));
            books.AddRange(page.Changes.Where(x => x.ChangeCase == SyncChange.ChangeOneofCase.Entitlement).Select(x => x.Entitlement.BookNo));
            since = page.SyncToken;
            if (!page.HasMore)
            {
                break;
            }
        }

        if (Wrong("gRPC pull", expected, ids, c.Books, books) is { } grpcWrong)
        {
            return grpcWrong;
        }

        // REST highlight list (at most 100 a page).
        ids = [];
        string? cursor = null;
        for (var pages = 0; ; pages++)
        {
            if (pages > 200)
            {
                return "REST highlight list did not end";
            }

            using var request = new HttpRequestMessage(HttpMethod.Get, $"/v1/users/{user}/highlights?pageSize={Math.Min(c.PageSize, 100)}" + (cursor is null ? string.Empty : "&cursor=" + Uri.EscapeDataString(cursor)));
            request.Headers.Authorization = auth;
            using var response = await rest.SendAsync(request, cancellationToken);
            var body = await response.Content.ReadAsByteArrayAsync(cancellationToken);
            using var page = JsonDocument.Parse(body);
            var items = page.RootElement.GetProperty("items").EnumerateArray().ToArray();
            var measured = items.Sum(item => PageBudget.ItemOverheadBytes + Utf8(item, "id") + Utf8(item, "text") + Utf8(item, "note") + Utf8(item, "location"));
            if (items.Length > 1 && measured > Budget)
            {
                return $"REST highlight list: a page over the budget | {items.Length} items measure {measured} bytes";
            }

            ids.AddRange(items.Select(x => x.GetProperty("id").GetString()!));
            cursor = page.RootElement.TryGetProperty("nextCursor", out var next) && next.ValueKind == JsonValueKind.String ? next.GetString() : null;
            if (cursor is null)
            {
                break;
            }

            if (items.Length == 0)
            {
                return "REST highlight list: an empty page with a cursor";
            }
        }

        return Wrong("REST highlight list", expected, ids, 0, []);
    }

    private static int Utf8(JsonElement element, string name) =>
        element.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? PageBudget.Utf8(value.GetString()) : 0;

    private static string? Wrong(string what, HashSet<string> expected, List<string> ids, int bookCount, List<long> books)
    {
        if (ids.Count != ids.Distinct().Count())
        {
            return $"{what}: a highlight came twice";
        }

        if (!expected.SetEquals(ids))
        {
            return $"{what}: highlights missing or extra | {ids.Count} delivered, {expected.Count} stored";
        }

        return bookCount > 0 && !books.Order().SequenceEqual(Enumerable.Range(1, bookCount).Select(b => (long)b))
            ? $"{what}: books missing or extra | {string.Join(',', books)} delivered, 1 to {bookCount} owned"
            : null;
    }

    public sealed record PageCase((string Text, string? Note, string? Location)[] Highlights, int Books, int PageSize)
    {
        public override string ToString() =>
            $"{Highlights.Length} highlights (text lengths {string.Join(',', Highlights.Select(h => h.Text.Length))}), {Books} books, pageSize {PageSize}";
    }

    /// <summary>A database of its own (books 1..20; users are made per case) and the service on it with a 16 KiB page budget.</summary>
    public sealed class Database : PostgresDatabase
    {
        private long _nextUser;
        private SyncGrpcTestHost? _host;

        internal SyncGrpcTestHost Host => _host ?? throw new InvalidOperationException("The service is not started yet.");

        public override async Task InitializeAsync()
        {
            await base.InitializeAsync();
            await new Kobo.Sync.Storage.Schema.SchemaMigrator(DataSource).MigrateAsync(TestTimeout.Token);
            await using (var command = DataSource.CreateCommand(
                "INSERT INTO books (book_no, title, author) SELECT n, 'Book ' || n, 'Author ' || n FROM generate_series(1, 20) n"))
            {
                await command.ExecuteNonQueryAsync(TestTimeout.Token);
            }

            _host = new SyncGrpcTestHost(ConnectionString, settings: new Dictionary<string, string?>
            {
                ["Paging:MaxPageBytes"] = Budget.ToString(System.Globalization.CultureInfo.InvariantCulture),
                ["Serilog:MinimumLevel:Default"] = "Warning",
            });
        }

        public override async Task DisposeAsync()
        {
            _host?.Dispose();
            await base.DisposeAsync();
        }

        /// <summary>
        /// A new user holding the case's highlights (change numbers 2, 4, ...) and books 1 to
        /// <see cref="PageCase.Books"/> (odd numbers among them).
        /// </summary>
        internal async Task<long> SeedAsync(PageCase c, CancellationToken cancellationToken)
        {
            var user = Interlocked.Increment(ref _nextUser);
            var n = c.Highlights.Length;
            await using var connection = await DataSource.OpenConnectionAsync(cancellationToken);
            await using var batch = new NpgsqlBatch(connection)
            {
                BatchCommands =
                {
                    new("INSERT INTO users (user_no, name, created_at, change_seq) VALUES ($1, 'reader', now(), 1000)")
                    {
                        Parameters = { new NpgsqlParameter<long> { TypedValue = user } },
                    },
                    new("""
                        INSERT INTO highlights (id, user_no, book_no, text, start, length, color, note, created_at, modified_at, seq, version, location)
                        SELECT format('highlights/users%s-ebooks/%s/k%s', $1, 1 + (i - 1) % 3, lpad((i - 1)::text, 3, '0')), $1, 1 + (i - 1) % 3,
                               t.text, 0, 1, 'yellow', t.note, now(), now(), 2 * i, 1, t.location
                        FROM unnest($2::text[], $3::text[], $4::text[]) WITH ORDINALITY AS t(text, note, location, i)
                        """)
                    {
                        Parameters =
                        {
                            new NpgsqlParameter<long> { TypedValue = user },
                            new NpgsqlParameter { NpgsqlDbType = NpgsqlDbType.Array | NpgsqlDbType.Text, Value = c.Highlights.Select(h => h.Text).ToArray() },
                            new NpgsqlParameter { NpgsqlDbType = NpgsqlDbType.Array | NpgsqlDbType.Text, Value = c.Highlights.Select(h => h.Note).ToArray() },
                            new NpgsqlParameter { NpgsqlDbType = NpgsqlDbType.Array | NpgsqlDbType.Text, Value = c.Highlights.Select(h => h.Location).ToArray() },
                        },
                    },
                    new("INSERT INTO users_books (user_no, book_no, acquired_at, seq, modified_at) SELECT $1, b, now(), (2 * b * $2 / 12) + 1, now() FROM generate_series(1, $3) b")
                    {
                        Parameters =
                        {
                            new NpgsqlParameter<long> { TypedValue = user },
                            new NpgsqlParameter<int> { TypedValue = n },
                            new NpgsqlParameter<int> { TypedValue = c.Books },
                        },
                    },
                },
            };
            await batch.ExecuteNonQueryAsync(cancellationToken);
            return user;
        }
    }
}
