using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;
using PageBudget = Kobo.Sync.Domain.Requests.PageBudget;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>Pages bounded in bytes as well as in items, over gRPC: the same budget as REST (Paging:MaxPageBytes).</summary>
public sealed class PageBytesGrpcTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private const string Service = "kobo.sync.v1.SyncService";
    private const int MaxAnswerBytes = PageBudget.DefaultMaxBytes + LargeHighlights.ItemBytes + 4_096;
    private readonly SyncServiceDatabase _db;
    private readonly SyncGrpcTestHost _host;

    public PageBytesGrpcTests(SyncServiceDatabase db)
    {
        _db = db;
        _host = new SyncGrpcTestHost(db.ConnectionString);
    }

    public void Dispose() => _host.Dispose();

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task HighlightPagesOfLargeHighlightsStayWithinTheBudgetAndWalkEveryHighlightOnce(bool oneBook)
    {
        var user = _db.NewUser();
        var seeded = await LargeHighlights.SeedAsync(_db.DataSource, user, 240);
        var expected = oneBook ? seeded.Where(id => id.Contains("-ebooks/1/", StringComparison.Ordinal)).ToHashSet() : seeded;

        var seen = new List<string>();
        var cursor = string.Empty;
        for (var pages = 0; pages < 100; pages++)
        {
            var page = oneBook
                ? await _host.Client.UnaryAsync(Service, "ListBookHighlights",
                    new ListBookHighlightsRequest { UserNo = user, BookNo = 1, PageSize = 100, Cursor = cursor }, HighlightPage.Parser,
                    metadata: As(user), cancellationToken: TestTimeout.Token)
                : await _host.Client.UnaryAsync(Service, "ListUserHighlights",
                    new ListUserHighlightsRequest { UserNo = user, PageSize = 100, Cursor = cursor }, HighlightPage.Parser,
                    metadata: As(user), cancellationToken: TestTimeout.Token);
            Assert.InRange(page.CalculateSize(), 1, MaxAnswerBytes);
            Assert.NotEmpty(page.Items);
            seen.AddRange(page.Items.Select(h => h.Id));
            cursor = page.NextCursor;
            if (cursor.Length == 0)
            {
                break;
            }
        }

        Assert.Equal(expected.Order(StringComparer.Ordinal), seen);
    }

    [Fact]
    public async Task APullOfAThousandLargeChangesStaysWithinTheBudgetAndDeliversEveryChangeOnce()
    {
        var user = _db.NewUser();
        var seeded = await LargeHighlights.SeedAsync(_db.DataSource, user, 240);

        var (highlights, books, pages) = await PullAllAsync(_host, user, page => Assert.InRange(page.CalculateSize(), 1, MaxAnswerBytes));

        Assert.Equal(seeded.Order(StringComparer.Ordinal), highlights.Order(StringComparer.Ordinal));
        Assert.Equal(Enumerable.Range(1, 20).Select(b => (long)b), books.Order());
        Assert.InRange(pages, 5, 8);
    }

    [Fact]
    public async Task AWatchSendsItsBacklogOfLargeChangesInPagesWithinTheBudget()
    {
        var user = _db.NewUser();
        var seeded = await LargeHighlights.SeedAsync(_db.DataSource, user, 240);
        using var watch = _host.Client.Sync.WatchChanges(
            new WatchChangesRequest { UserNo = user, PageSize = 1000 },
            GrpcTestClient.ToMetadata(As(user)), DateTime.UtcNow.AddSeconds(60), cancellationToken: TestTimeout.Token);

        var highlights = new List<string>();
        for (var pages = 0; pages < 100; pages++)
        {
            Assert.True(await watch.ResponseStream.MoveNext(TestTimeout.Token), "the stream ended");
            var page = watch.ResponseStream.Current;
            if (page.Heartbeat)
            {
                continue;
            }

            Assert.InRange(page.CalculateSize(), 1, MaxAnswerBytes);
            highlights.AddRange(page.Changes.Where(c => c.ChangeCase == SyncChange.ChangeOneofCase.Highlight).Select(c => c.Highlight.Id));
            if (!page.HasMore)
            {
                break;
            }
        }

        Assert.Equal(seeded.Order(StringComparer.Ordinal), highlights.Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task AHighlightLargerThanTheBudgetComesAloneAndPagingMovesOn()
    {
        var user = _db.NewUser();
        var seeded = await LargeHighlights.SeedAsync(_db.DataSource, user, 6);
        using var small = new SyncGrpcTestHost(_db.ConnectionString, settings: new Dictionary<string, string?> { ["Paging:MaxPageBytes"] = "16384" });

        var (highlights, _, _) = await PullAllAsync(small, user, page =>
        {
            Assert.NotEmpty(page.Changes);
            Assert.True(
                page.Changes.All(c => c.ChangeCase != SyncChange.ChangeOneofCase.Highlight) || page.Changes.Count == 1,
                "a highlight over the budget comes alone");
        });

        Assert.Equal(seeded.Order(StringComparer.Ordinal), highlights.Order(StringComparer.Ordinal));
    }

    private static async Task<(List<string> Highlights, List<long> Books, int Pages)> PullAllAsync(
        SyncGrpcTestHost host, long user, Action<PullChangesResponse> check)
    {
        var highlights = new List<string>();
        var books = new List<long>();
        var token = string.Empty;
        for (var pages = 1; pages <= 100; pages++)
        {
            var page = await host.Client.UnaryAsync(
                Service, "PullChanges", new PullChangesRequest { UserNo = user, Since = token, PageSize = 1000 }, PullChangesResponse.Parser,
                metadata: As(user), cancellationToken: TestTimeout.Token);
            check(page);
            highlights.AddRange(page.Changes.Where(c => c.ChangeCase == SyncChange.ChangeOneofCase.Highlight).Select(c => c.Highlight.Id));
            books.AddRange(page.Changes.Where(c => c.ChangeCase == SyncChange.ChangeOneofCase.Entitlement).Select(c => c.Entitlement.BookNo));
            token = page.SyncToken;
            if (!page.HasMore)
            {
                return (highlights, books, pages);
            }
        }

        throw new Xunit.Sdk.XunitException("the pull did not end within 100 pages");
    }
}
