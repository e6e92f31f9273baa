using System.Net;
using Kobo.Sync.Storage.Schema;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Two instances of the service on one small server (<c>max_connections</c> 30), told they are two
/// (<c>Storage:Instances</c>): each holds at most its share of the server, so a burst on one, whose
/// connections its pool then keeps, leaves the other its own and never a <c>53300 too many clients</c>.
/// </summary>
public sealed class SharedServerConnectionsTests(SharedServerConnectionsTests.TwoInstancesOnASmallServer service)
    : IClassFixture<SharedServerConnectionsTests.TwoInstancesOnASmallServer>
{
    /// <summary>A server of the class's own taking 30 connections, users 1..200, and instances <see cref="A"/> and <see cref="B"/> on it.</summary>
    public sealed class TwoInstancesOnASmallServer : IAsyncLifetime
    {
        public const int MaxConnections = 30;

        /// <summary>The test's own sessions, told apart from the service's in <c>pg_stat_activity</c>.</summary>
        public const string TestApplication = "kobo-sync-test";

        private readonly ControllablePostgres _server = new();
        private SyncGrpcTestHost? _a;
        private SyncGrpcTestHost? _b;

        public SyncGrpcTestHost A => _a ?? throw new InvalidOperationException("Not started.");

        public SyncGrpcTestHost B => _b ?? throw new InvalidOperationException("Not started.");

        public string TestConnectionString => new NpgsqlConnectionStringBuilder(_server.ConnectionString)
        {
            ApplicationName = TestApplication,
            Pooling = false,
        }.ConnectionString;

        public async Task InitializeAsync()
        {
            await _server.InitializeAsync();
            await using (var admin = new NpgsqlConnection(TestConnectionString))
            {
                await admin.OpenAsync(TestTimeout.Token);
                await using var small = new NpgsqlCommand($"ALTER SYSTEM SET max_connections = {MaxConnections}", admin);
                await small.ExecuteNonQueryAsync(TestTimeout.Token);
            }

            await _server.StopAsync();
            await _server.StartAsync();
            await using (var dataSource = NpgsqlDataSource.Create(TestConnectionString))
            {
                await new SchemaMigrator(dataSource).MigrateAsync(TestTimeout.Token);
                await using var seed = dataSource.CreateCommand("""
                    INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, 200) n;
                    INSERT INTO books (book_no, title, author) SELECT n, 'Book ' || n, 'Author ' || n FROM generate_series(1, 20) n;
                    """);
                await seed.ExecuteNonQueryAsync(TestTimeout.Token);
            }

            var settings = new Dictionary<string, string?> { ["Storage:Instances"] = "2" };
            _a = new SyncGrpcTestHost(_server.ConnectionString, settings: settings);
            _b = new SyncGrpcTestHost(_server.ConnectionString, settings: settings);
        }

        public async Task DisposeAsync()
        {
            _a?.Dispose();
            _b?.Dispose();
            await _server.DisposeAsync();
        }
    }

    [Fact]
    public async Task ABurstOnOneInstanceLeavesTheOtherItsConnections()
    {
        // The burst: 60 devices pull from A while their pulls cannot finish (the highlights are locked), so
        // A's pool opens every connection it may; A's requests past its pool's share wait for one, and end.
        await using (var holder = new NpgsqlConnection(service.TestConnectionString))
        {
            await holder.OpenAsync(TestTimeout.Token);
            await using (var transaction = await holder.BeginTransactionAsync(TestTimeout.Token))
            {
                await using (var lockTable = new NpgsqlCommand("LOCK TABLE highlights IN ACCESS EXCLUSIVE MODE", holder, transaction))
                {
                    await lockTable.ExecuteNonQueryAsync(TestTimeout.Token);
                }

                var burst = Enumerable.Range(1, 60).Select(user => PullAsync(service.A, user, "burst")).ToArray();
                await Task.WhenAll(burst);
                await transaction.RollbackAsync(TestTimeout.Token);
            }
        }

        // A keeps what it opened; B must still have its own share: it serves rounds of concurrent pulls.
        var statuses = new List<HttpStatusCode>();
        for (var round = 0; round < 4; round++)
        {
            statuses.AddRange(await Task.WhenAll(Enumerable.Range(101 + (round * 6), 6).Select(user => PullAsync(service.B, user, "after"))));
        }

        var held = await ServiceConnectionsAsync();
        Assert.All(statuses, status => Assert.Equal(HttpStatusCode.OK, status));
        Assert.DoesNotContain("53300", service.B.Logs.RenderAll(), StringComparison.Ordinal);
        Assert.DoesNotContain("53300", service.A.Logs.RenderAll(), StringComparison.Ordinal);
        // Both instances' shares together: the server's 30, less the 3 kept for superusers and the 10 of Storage:ReservedConnections.
        Assert.InRange(held, 1, TwoInstancesOnASmallServer.MaxConnections - 3 - 10);
    }

    private static async Task<HttpStatusCode> PullAsync(SyncGrpcTestHost host, long user, string device)
    {
        using var client = TwoInstances.Rest(host, user, device);
        using var response = await client.GetAsync(new Uri($"/v1/users/{user}/changes", UriKind.Relative), TestTimeout.Token);
        return response.StatusCode;
    }

    private async Task<int> ServiceConnectionsAsync()
    {
        await using var admin = new NpgsqlConnection(service.TestConnectionString);
        await admin.OpenAsync(TestTimeout.Token);
        await using var count = new NpgsqlCommand(
            "SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend' AND application_name <> $1", admin)
        {
            Parameters = { new NpgsqlParameter<string> { TypedValue = TwoInstancesOnASmallServer.TestApplication } },
        };
        return (int)(await count.ExecuteScalarAsync(TestTimeout.Token))!;
    }
}
