using System.Collections.Concurrent;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Storage.Devices;
using Kobo.Sync.Storage.Schema;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.DependencyInjection;
using Serilog.Events;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// A class fixture for the fuzz tests: a database of its own (users 1..20, books 1..20), the whole
/// service on it over real sockets, and the fuzzed user's data: highlights on several pages, owned
/// books, and real cursors and sync tokens for the generators to send back or mutate. Only the fuzzed
/// user has tokens; the bystander's data must come out of every run untouched.
/// </summary>
public sealed class FuzzedService : PostgresDatabase
{
    public const long User = 1;
    public const long Bystander = 2;
    private SyncGrpcTestHost? _host;

    internal SyncGrpcTestHost Host => _host ?? throw new InvalidOperationException("The service is not started yet.");

    /// <summary>Cursors and sync tokens the service really issued to the fuzzed user.</summary>
    internal FuzzWorld World { get; private set; } = null!;

    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        await new SchemaMigrator(DataSource).MigrateAsync(TestTimeout.Token);
        await using (var command = DataSource.CreateCommand("""
            INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, 20) n;
            INSERT INTO books (book_no, title, author) SELECT n, 'Book ' || n, 'Author ' || n FROM generate_series(1, 20) n;
            INSERT INTO users_books (user_no, book_no, acquired_at, seq, modified_at) SELECT u, b, now(), b, now() FROM generate_series(1, 2) u, generate_series(1, 5) b;
            UPDATE users SET change_seq = 5 WHERE user_no IN (1, 2);
            INSERT INTO book_files (book_no, format, size) VALUES (1, 'KEPUB', 1000), (1, 'EPUB3', 2000), (2, 'EPUB3', 3000);
            """))
        {
            await command.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        // Request lines are not kept (thousands of them would weigh on the memory check); errors are.
        _host = new SyncGrpcTestHost(ConnectionString, settings: new Dictionary<string, string?>
        {
            ["Serilog:MinimumLevel:Default"] = "Warning",
            // Download URLs and cover redirects name it; nothing follows them.
            ["Kobo:ContentBaseUrl"] = "http://127.0.0.1:9/content",
            // The verdicts judge how each input is answered, not how fast the database is.
            ["Resilience:RequestBudgetMs"] = SyncApiFactory.FunctionalRequestBudgetMs,
        });
        World = await FuzzWorld.CreateAsync(Host);
    }

    public override async Task DisposeAsync()
    {
        _host?.Dispose();
        await base.DisposeAsync();
    }

    /// <summary>
    /// Runs <paramref name="run"/> and then checks what every fuzz run must leave behind: the bystander's
    /// data untouched, the fuzzed user's rows changed only where an accepted request said it changed
    /// them, no infinite timestamp stored, the errors the service logged, and the managed heap back near
    /// where it started.
    /// </summary>
    internal async Task<FuzzReport> FuzzAsync(int count, Func<FuzzLedger, Range, Task<FuzzReport>> run)
    {
        var ledger = new FuzzLedger();
        // Devices' positions are written behind: what an earlier run's pulls left held is written first.
        var positions = Host.Services.GetRequiredService<DevicePositionWriter>();
        await positions.FlushAllAsync(TestTimeout.Token);
        var before = await StoreSnapshot.TakeAsync(DataSource);
        // The first half fills what fills once (pools, caches, JIT'd code, the array pool's buffers for the
        // rare large bodies, which may first come late); the heap is measured over the second half.
        var warm = count / 2;
        var report = await run(ledger, 0..warm);
        var heapBefore = Heap();
        report = report.Then(await run(ledger, warm..count));
        await positions.FlushAllAsync(TestTimeout.Token);
        var after = await StoreSnapshot.TakeAsync(DataSource);
        report.Problems.AddRange(before.Explain(after, ledger));
        report.Problems.AddRange(LoggedErrors());
        var heapAfter = Heap();
        report.HeapGrowth = heapAfter - heapBefore;
        if (heapAfter - heapBefore > MaxHeapGrowth)
        {
            report.Problems.Add($"The managed heap grew by {(heapAfter - heapBefore) / (1024 * 1024)} MiB over the last {count - warm} inputs (from {heapBefore / (1024 * 1024)} MiB), more than {MaxHeapGrowth / (1024 * 1024)} MiB.");
        }

        return report;
    }

    /// <summary>
    /// Generous, because some fills are bounded but late: each pooled database connection keeps the
    /// buffers its largest batch grew (a 500-change push), and the array pool keeps buffers for the rare
    /// large bodies; the heap grew 12-34 MiB over the second half of 2,500 pushes, and 32 MiB over three
    /// times the inputs, so nothing stays per request. Over the 600 pushes the test command measures, a
    /// leak of about 110 KiB a request fails it; <c>FUZZ_SCALE=4</c> finds one of about 27 KiB.
    /// </summary>
    private const long MaxHeapGrowth = 64L * 1024 * 1024;

    private static long Heap()
    {
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        GC.WaitForPendingFinalizers();
        return GC.GetTotalMemory(forceFullCollection: true);
    }

    /// <summary>The distinct errors the service logged (with a stack trace), then forgets them.</summary>
    private IEnumerable<string> LoggedErrors()
    {
        // The exception handler logs every exception it sees, the refusals it turns into a 4xx included.
        // A readiness verdict is not a request's error: the gRPC health service re-runs the storage check
        // in the background, and on a starved box (the forced, compacting collections of Heap() pause this
        // process) its SELECT 1 can miss its 1 s deadline, which the health-check service logs as an error.
        var errors = Host.Logs.Events
            .Where(e => e.Level >= LogEventLevel.Error
                && e.Exception is not (Domain.Requests.RequestRejectedException or BadHttpRequestException)
                && !IsReadinessVerdict(e))
            .ToList();
        Host.Logs.Clear();
        return errors
            .GroupBy(e => e.Exception is { } exception ? $"{exception.GetType().FullName} at {exception.TargetSite?.DeclaringType?.Name}.{exception.TargetSite?.Name}" : e.MessageTemplate.Text)
            .OrderByDescending(g => g.Count())
            .Take(8)
            .Select(g => $"The service logged {g.Count()} error(s) like: {g.First().RenderMessage()}{Environment.NewLine}{g.First().Exception}");
    }

    private static bool IsReadinessVerdict(LogEvent e) =>
        e.Properties.TryGetValue("SourceContext", out var source)
        && source is ScalarValue { Value: "Microsoft.Extensions.Diagnostics.HealthChecks.DefaultHealthCheckService" };
}

/// <summary>Real cursors and sync tokens of the fuzzed user, obtained through the service itself.</summary>
internal sealed record FuzzWorld(string[] Cursors, string[] BookCursors, string[] SyncTokens)
{
    public static async Task<FuzzWorld> CreateAsync(SyncGrpcTestHost host)
    {
        using var rest = new HttpClient { BaseAddress = host.RestAddress };
        rest.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(FuzzedService.User, "setup-device"));
        foreach (var user in new[] { FuzzedService.User, FuzzedService.Bystander })
        {
            using var device = new HttpClient { BaseAddress = host.RestAddress };
            device.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(user, "setup-device"));
            var changes = Enumerable.Range(0, 12).Select(i =>
                $$"""{"op":"upsert","bookNo":"{{1 + (i % 3)}}","key":"seed{{i}}","text":"seeded {{i}}","start":{{i}},"length":5,"color":"yellow","modifiedAt":"2026-01-01T00:00:00Z"}""");
            using var push = await device.PostAsync(
                $"/v1/users/{user}/changes", new StringContent($$"""{"changes":[{{string.Join(',', changes)}}]}""", Encoding.UTF8, "application/json"), TestTimeout.Token);
            Assert.True(push.IsSuccessStatusCode, await push.Content.ReadAsStringAsync(TestTimeout.Token));
        }

        var cursor = await PropertyAsync(rest, $"/v1/users/{FuzzedService.User}/highlights?pageSize=3", "nextCursor");
        var bookCursor = await PropertyAsync(rest, $"/v1/users/{FuzzedService.User}/books/1/highlights?pageSize=2", "nextCursor");
        var midway = await PropertyAsync(rest, $"/v1/users/{FuzzedService.User}/changes?pageSize=4", "syncToken");
        var caughtUp = await PropertyAsync(rest, $"/v1/users/{FuzzedService.User}/changes?pageSize=1000", "syncToken");
        var grpcPage = await host.Client.Sync.ListUserHighlightsAsync(
            new ListUserHighlightsRequest { UserNo = FuzzedService.User, PageSize = 5 }, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(FuzzedService.User)));
        return new FuzzWorld([cursor, grpcPage.NextCursor], [bookCursor], [midway, caughtUp]);
    }

    private static async Task<string> PropertyAsync(HttpClient rest, string path, string name)
    {
        var body = await rest.GetStringAsync(path, TestTimeout.Token);
        return JsonDocument.Parse(body).RootElement.GetProperty(name).GetString()!;
    }
}

/// <summary>What the accepted requests of a run said they stored: the only changes a run may leave.</summary>
internal sealed class FuzzLedger
{
    public ConcurrentDictionary<string, bool> Written { get; } = new(StringComparer.Ordinal);

    public ConcurrentDictionary<string, bool> Devices { get; } = new(StringComparer.Ordinal);

    public void Wrote(string id) => Written[id] = true;

    /// <summary>The ledger's key of a reading state (<see cref="StoreSnapshot"/> names its rows so).</summary>
    public static string ReadingState(object bookNo) => $"reading-state {bookNo}";

    public void Touched(IEnumerable<string> devices)
    {
        foreach (var device in devices)
        {
            Devices[device] = true;
        }
    }
}
