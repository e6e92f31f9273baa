using Kobo.Sync.Storage.Devices;
using Kobo.Sync.Storage.Purges;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Npgsql;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;
using PullChangesRequest = Kobo.Sync.Contracts.Grpc.V1.PullChangesRequest;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// A sync that finds nothing new costs the database one statement and no write: devices' positions are
/// written behind, a batch per interval, counted here with PostgreSQL's own statistics
/// (pg_stat_statements, this database's statements only). The positions are stored; the device list and a
/// revocation see them at once; a stop writes what is left; and a position that never reached the store
/// (as after a crash) lets no device miss a deletion the purge removed.
/// </summary>
public sealed class DevicePositionsTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    /// <summary>Positions held for a minute: what reaches the store in a test is what a pull, a list or a stop wrote.</summary>
    private static readonly Dictionary<string, string?> HeldLong = new() { ["Sync:DevicePositionFlushMs"] = "60000" };

    [Fact]
    public async Task ANoChangePullSendsOneStatementAndWritesNothingOverRestAndGrpc()
    {
        var user = db.NewUser();
        using var service = db.ServiceWith(HeldLong);
        using var grpc = new SyncGrpcTestHost(db.ConnectionString, settings: HeldLong);
        using var device = service.CreateClient().WithToken(TestTokens.For(user, "reader"));
        var notified = NotifyCalls(await StatementsAsync());
        await device.PushAsync(user, Upsert("k1", "a highlight", T0));
        var (_, token) = await device.PullAllAsync(user);
        // The push tells the other instances after its commit (live pull): that goes before the count starts.
        for (var waited = 0; NotifyCalls(await StatementsAsync()) == notified; waited++)
        {
            Assert.True(waited < 500, "the push's signal was not sent within 10 s");
            await Task.Delay(20, TestTimeout.Token);
        }

        var before = await StatementsAsync();
        for (var i = 0; i < 10; i++)
        {
            var page = await device.PullPageAsync(user, token);
            Assert.Equal(0, page.GetProperty("changes").GetArrayLength());
            var answer = await grpc.Client.Sync.PullChangesAsync(
                new PullChangesRequest { UserNo = user, Since = token },
                GrpcTestClient.ToMetadata([new("authorization", $"Bearer {TestTokens.For(user, "reader")}")]),
                cancellationToken: TestTimeout.Token);
            Assert.Empty(answer.Changes);
        }

        var all = (await StatementsAsync()).Since(before);
        // Nothing at all was written in the window, and besides the instances' own periodic reads (the
        // revocation refreshes, the pool's connection check), which a busy machine can put inside it,
        // the pulls ran one statement.
        Assert.All(all, s => Assert.Equal(0, s.WalRecords));
        var ran = all.Where(s => !IsPeriodicRead(s.Query)).ToList();
        var statement = Assert.Single(ran);
        Assert.Equal("SELECT change_seq FROM users WHERE user_no = $1", statement.Query);
        Assert.Equal(20, statement.Calls);
        Assert.Equal(0, statement.WalRecords);
    }

    [Fact]
    public async Task PositionsAreWrittenBehindInOneStatementAndTheDeviceListSeesThemAtOnce()
    {
        var user = db.NewUser();
        using var service = db.ServiceWith(HeldLong);
        using var phone = service.CreateClient().WithToken(TestTokens.For(user, "phone"));
        using var tablet = service.CreateClient().WithToken(TestTokens.For(user, "tablet"));
        await phone.PushAsync(user, Upsert("k1", "a highlight", T0));
        var (_, phoneToken) = await phone.PullAllAsync(user);
        var (_, tabletToken) = await tablet.PullAllAsync(user);
        var firstSeen = await PositionAsync(user, "phone");
        Assert.Equal(0, firstSeen.Acked);

        await phone.PullPageAsync(user, phoneToken);
        await tablet.PullPageAsync(user, tabletToken);
        Assert.Equal(firstSeen, await PositionAsync(user, "phone"));

        var before = await StatementsAsync();
        var list = await phone.GetJsonAsync($"/v1/users/{user}/devices", 200);
        var written = (await StatementsAsync()).Since(before).Where(s => s.Query.StartsWith("UPDATE devices", StringComparison.Ordinal)).ToArray();

        var listed = list.GetProperty("devices").EnumerateArray().ToDictionary(d => d.Str("deviceId"), d => d.GetProperty("position").GetInt64());
        Assert.True(listed["phone"] > 0, "the phone's position was not listed");
        Assert.Equal(listed["phone"], (await PositionAsync(user, "phone")).Acked);
        Assert.Equal(listed["tablet"], (await PositionAsync(user, "tablet")).Acked);
        Assert.True((await PositionAsync(user, "phone")).At > firstSeen.At);
        var write = Assert.Single(written);
        Assert.Equal(1, write.Calls);
        Assert.Equal(2, write.Rows);
    }

    [Fact]
    public async Task WithoutAListTheIntervalWritesThemAndAStopWritesWhatIsLeft()
    {
        var user = db.NewUser();
        using (var service = db.ServiceWith(new() { ["Sync:DevicePositionFlushMs"] = "200" }))
        {
            using var device = service.CreateClient().WithToken(TestTokens.For(user, "reader"));
            await device.PushAsync(user, Upsert("k1", "a highlight", T0));
            var (_, token) = await device.PullAllAsync(user);
            await device.PullPageAsync(user, token);
            Assert.True(await EventuallyAsync(async () => (await PositionAsync(user, "reader")).Acked > 0), "the interval never wrote the position");
        }

        var other = db.NewUser();
        using (var service = db.ServiceWith(HeldLong))
        {
            using var device = service.CreateClient().WithToken(TestTokens.For(other, "reader"));
            await device.PushAsync(other, Upsert("k1", "a highlight", T0));
            var (_, token) = await device.PullAllAsync(other);
            await device.PullPageAsync(other, token);
            Assert.Equal(0, (await PositionAsync(other, "reader")).Acked);
        }

        Assert.True((await PositionAsync(other, "reader")).Acked > 0, "the stop did not write the held position");
    }

    [Fact]
    public async Task AWriteThatFailsKeepsThePositionsForTheNextOne()
    {
        var user = db.NewUser();
        using var service = db.ServiceWith(new() { ["Sync:DevicePositionFlushMs"] = "100" });
        var writer = service.Services.GetRequiredService<DevicePositionWriter>();
        using var device = service.CreateClient().WithToken(TestTokens.For(user, "reader"));
        await device.PushAsync(user, Upsert("k1", "a highlight", T0));
        var (_, token) = await device.PullAllAsync(user);

        // The table is away: every write fails until it is back, and the position waits in memory.
        await ExecuteAsync("ALTER TABLE devices RENAME TO devices_away");
        try
        {
            await device.PullPageAsync(user, token);
            await Task.Delay(500, TestTimeout.Token);
            Assert.Equal(0, (await PositionAsync(user, "reader", table: "devices_away")).Acked);
        }
        finally
        {
            await ExecuteAsync("ALTER TABLE devices_away RENAME TO devices");
        }

        Assert.True(await EventuallyAsync(async () => (await PositionAsync(user, "reader")).Acked > 0), "the kept position was never written");
        Assert.Equal(0, writer.Pending);
    }

    private async Task ExecuteAsync(string sql)
    {
        await using var command = db.DataSource.CreateCommand(sql);
        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }

    [Fact]
    public async Task APositionThatNeverReachedTheStoreLetsNoDeviceMissADeletionThePurgeRemoved()
    {
        var user = db.NewUser();
        using var service = db.ServiceWith(HeldLong);
        using var reader = service.CreateClient().WithToken(TestTokens.For(user, "reader"));
        using var phone = service.CreateClient().WithToken(TestTokens.For(user, "phone"));
        await phone.PushAsync(user, Upsert("k1", "a highlight", T0));
        var (_, beforeDeletion) = await reader.PullAllAsync(user);
        await phone.PushAsync(user, Delete("k1", T0.AddMinutes(1)));

        // The reader receives the tombstone, and its positions stay in memory, as if the instance then crashed.
        var (changes, afterDeletion) = await reader.PullAllAsync(user, beforeDeletion);
        Assert.True(Assert.Single(changes).GetProperty("deleted").GetBoolean());
        var stored = await PositionAsync(user, "reader");
        Assert.Equal(0, stored.Acked);

        await new TombstonePurge(db.DataSource).PurgeAsync(DateTimeOffset.UtcNow.AddDays(1), 10_000, TestTimeout.Token);

        // Back with the token from before the deletion, the device is told to start over, never answered empty.
        await reader.PullPageAsync(user, beforeDeletion, expect: 410);
        var caughtUp = await reader.PullPageAsync(user, afterDeletion);
        Assert.Equal(0, caughtUp.GetProperty("changes").GetArrayLength());
    }

    private Task<Dictionary<long, CountedStatement>> StatementsAsync() => DatabaseStatements.SnapshotAsync(db.DataSource);

    private async Task<(long Acked, DateTimeOffset? At)> PositionAsync(long user, string device, string table = "devices")
    {
        await using var command = db.DataSource.CreateCommand($"SELECT acked_seq, last_sync_at FROM {table} WHERE user_no = $1 AND device_id = $2");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = device });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        Assert.True(await reader.ReadAsync(TestTimeout.Token), $"device {device} of user {user} is not stored");
        return (reader.GetInt64(0), reader.IsDBNull(1) ? null : reader.GetFieldValue<DateTimeOffset>(1));
    }

    private static async Task<bool> EventuallyAsync(Func<Task<bool>> condition)
    {
        for (var i = 0; i < 300; i++)
        {
            if (await condition())
            {
                return true;
            }

            await Task.Delay(100, TestTimeout.Token);
        }

        return false;
    }

    private static long NotifyCalls(Dictionary<long, CountedStatement> statements) =>
        statements.Values.Where(s => s.Query.Contains("pg_notify", StringComparison.Ordinal)).Sum(s => s.Calls);

    private static bool IsPeriodicRead(string query) =>
        query == "SELECT $1" || query.EndsWith("WHERE revoked_at >= $1", StringComparison.Ordinal);
}
