using System.Diagnostics;
using System.Text.Json;
using Kobo.Sync.Storage.Schema;
using Kobo.Sync.SyncApi.Infrastructure.Admission;
using Kobo.Sync.SyncApi.Infrastructure.Live;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Live.Support;

/// <summary>
/// A class fixture for live pull: a migrated database of its own holding users 1..200 and books 1..20,
/// and two instances of the whole service on it (<see cref="A"/> and <see cref="B"/>, real Kestrel,
/// REST and gRPC), as behind a load balancer. A push whose text is <see cref="FailsAtCommit"/> fails
/// at its commit (a deferred constraint trigger), after every statement of the push has run.
/// </summary>
public class TwoInstances : PostgresDatabase
{
    /// <summary>A highlight text that makes the push's COMMIT fail, after every other statement of the push ran.</summary>
    public const string FailsAtCommit = "this push fails at its commit";

    private int _nextUser;
    private SyncGrpcTestHost? _a;
    private SyncGrpcTestHost? _b;

    public SyncGrpcTestHost A => _a ?? throw new InvalidOperationException("The service is not started yet.");

    public SyncGrpcTestHost B => _b ?? throw new InvalidOperationException("The service is not started yet.");

    /// <summary>Settings both instances start with, besides the test defaults.</summary>
    protected virtual IReadOnlyDictionary<string, string?>? Settings => null;

    /// <summary>Whether the instances' change listeners listen (the start waits for them).</summary>
    protected virtual bool Listens => true;

    public long NewUser() => Interlocked.Increment(ref _nextUser);

    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        await new SchemaMigrator(DataSource).MigrateAsync(TestTimeout.Token);
        await using (var command = DataSource.CreateCommand($$"""
            INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, 200) n;
            INSERT INTO books (book_no, title, author) SELECT n, 'Book ' || n, 'Author ' || n FROM generate_series(1, 20) n;
            CREATE FUNCTION fail_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'the test refuses this commit';
            END $$;
            CREATE CONSTRAINT TRIGGER fail_at_commit AFTER INSERT OR UPDATE ON highlights
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.text = '{{FailsAtCommit}}') EXECUTE FUNCTION fail_at_commit();
            """))
        {
            await command.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        _a = new SyncGrpcTestHost(ConnectionString, settings: Settings);
        _b = new SyncGrpcTestHost(ConnectionString, settings: Settings);
        if (Listens)
        {
            await WaitListeningAsync(_a);
            await WaitListeningAsync(_b);
        }
    }

    public override async Task DisposeAsync()
    {
        _a?.Dispose();
        _b?.Dispose();
        await base.DisposeAsync();
    }

    /// <summary>A REST client of <paramref name="host"/> speaking as <paramref name="device"/> of <paramref name="user"/>.</summary>
    public static HttpClient Rest(SyncGrpcTestHost host, long user, string device = "test-device") =>
        new HttpClient { BaseAddress = host.RestAddress, Timeout = TimeSpan.FromSeconds(90) }.WithToken(TestTokens.For(user, device));

    public static ChangeWaiters Waiters(SyncGrpcTestHost host) => host.Services.GetRequiredService<ChangeWaiters>();

    /// <summary>
    /// Until <paramref name="count"/> devices wait on <paramref name="host"/>, asleep: registered, and no
    /// pull of theirs holding an admission slot (a device registers before its first pull).
    /// </summary>
    public static Task WaitingAsync(SyncGrpcTestHost host, int count, string what)
    {
        var admission = host.Services.GetRequiredService<InstanceAdmission>();
        var slots = host.Services.GetRequiredService<IOptions<AdmissionOptions>>().Value.ConcurrencyLimit;
        return EventuallyAsync(
            () => Waiters(host).Count == count && admission.Limiter.GetStatistics()?.CurrentAvailablePermits == slots, what);
    }

    /// <summary>Until <paramref name="condition"/> holds, checking every 20 ms; fails after <paramref name="seconds"/>.</summary>
    public static async Task EventuallyAsync(Func<bool> condition, string what, double seconds = 10)
    {
        var clock = Stopwatch.StartNew();
        while (!condition())
        {
            Assert.True(clock.Elapsed.TotalSeconds < seconds, $"{what}: not within {seconds} s");
            await Task.Delay(20, TestTimeout.Token);
        }
    }

    /// <summary>A REST pull with <c>wait</c>: its status, Retry-After, body and how long it took.</summary>
    public static async Task<LongPoll> LongPollAsync(HttpClient client, long user, string? since, int wait, CancellationToken cancellationToken = default)
    {
        var query = $"?wait={wait}" + (since is null ? string.Empty : "&since=" + Uri.EscapeDataString(since));
        var clock = Stopwatch.StartNew();
        using var linked = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, TestTimeout.Token);
        using var response = await client.GetAsync(new Uri($"/v1/users/{user}/changes{query}", UriKind.Relative), linked.Token);
        var body = await response.Content.ReadAsStringAsync(linked.Token);
        return new LongPoll((int)response.StatusCode, response.Headers.RetryAfter?.Delta, JsonDocument.Parse(body).RootElement.Clone(), clock.Elapsed);
    }

    /// <summary>Waits until the instance's change listener listens (it starts after the service).</summary>
    private static Task WaitListeningAsync(SyncGrpcTestHost host) =>
        EventuallyAsync(() => host.Services.GetRequiredService<Kobo.Sync.SyncApi.Infrastructure.Live.ChangeListener>().IsListening, "the change listener listens");

    /// <summary>Runs <paramref name="sql"/> on the server's maintenance database (outside this one).</summary>
    public static async Task AdminAsync(string sql, params object[] parameters)
    {
        var server = await PostgresServer.GetAsync();
        await using var admin = new NpgsqlConnection(server.ConnectionString);
        await admin.OpenAsync(TestTimeout.Token);
        await using var command = new NpgsqlCommand(sql, admin);
        foreach (var value in parameters)
        {
            command.Parameters.Add(new NpgsqlParameter { Value = value });
        }

        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }
}

/// <summary>The answer to a REST pull with <c>wait</c>.</summary>
public sealed record LongPoll(int Status, TimeSpan? RetryAfter, JsonElement Body, TimeSpan Elapsed)
{
    public JsonElement[] Changes => Body.GetProperty("changes").EnumerateArray().ToArray();

    public string Token => Body.GetProperty("syncToken").GetString()!;
}
