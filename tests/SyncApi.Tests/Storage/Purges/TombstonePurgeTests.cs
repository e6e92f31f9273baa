using Kobo.Sync.Storage.Purges;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Storage.Purges;

/// <summary>The tombstone purge on a real PostgreSQL: retention, batches, locked rows, the tokens it outdates, the hosted job.</summary>
public sealed class TombstonePurgeTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);
    private static readonly TimeSpan Retention = TimeSpan.FromDays(90);

    private static DateTimeOffset Cutoff => DateTimeOffset.UtcNow - Retention;

    private string Id(long user, string key) => $"highlights/users{user}-ebooks/7/{key}";

    /// <summary>Makes a tombstone look deleted <paramref name="days"/> days ago.</summary>
    private async Task AgeAsync(string id, int days)
    {
        await using var command = db.DataSource.CreateCommand("UPDATE highlights SET deleted_at = now() - make_interval(days => $2) WHERE id = $1 AND deleted_at IS NOT NULL");
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = id });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = days });
        Assert.Equal(1, await command.ExecuteNonQueryAsync(TestTimeout.Token));
    }

    private async Task<(long User, HttpClient Device)> UserWithTombstonesAsync(params string[] deleted)
    {
        var user = db.NewUser();
        var device = db.Device(user);
        await device.PushAsync(user, new[] { "live" }.Concat(deleted).Select(k => Upsert(k, "t", T0)).ToArray());
        await device.PushAsync(user, deleted.Select(k => Delete(k, T0.AddMinutes(1))).ToArray());
        return (user, device);
    }

    [Fact]
    public async Task OnlyTombstonesOlderThanTheRetentionArePurgedInBatches()
    {
        var (user, device) = await UserWithTombstonesAsync("old1", "old2", "old3", "recent");
        using var _ = device;
        foreach (var key in new[] { "old1", "old2", "old3" })
        {
            await AgeAsync(Id(user, key), 91);
        }

        await AgeAsync(Id(user, "recent"), 89);

        var purged = await new TombstonePurge(db.DataSource).PurgeAsync(Cutoff, batchSize: 2, TestTimeout.Token);

        Assert.True(purged >= 3, $"purged {purged}");
        Assert.Equal([Id(user, "live"), Id(user, "recent")], (await db.StoredAsync(user)).Keys.Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task ATokenFromBeforeAPurgedTombstoneIs410AndAFullSyncStillWorks()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        await device.PushAsync(user, Upsert("gone", "t", T0), Upsert("live", "t", T0));
        var (_, before) = await device.PullAllAsync(user);
        await device.PushAsync(user, Delete("gone", T0.AddMinutes(1)));
        await AgeAsync(Id(user, "gone"), 91);
        await new TombstonePurge(db.DataSource).PurgeAsync(Cutoff, 100, TestTimeout.Token);

        var problem = await device.PullPageAsync(user, before, expect: 410);
        var (fullSync, after) = await device.PullAllAsync(user);
        var (nothing, _) = await device.PullAllAsync(user, after);

        Assert.True(problem.GetProperty("errors").TryGetProperty("since", out _));
        Assert.Equal([Id(user, "live")], fullSync.Select(c => c.Str("id")));
        Assert.Empty(nothing);
    }

    [Fact]
    public async Task APurgeSkipsATombstoneADeviceWriteHoldsInsteadOfWaitingForIt()
    {
        var (user, device) = await UserWithTombstonesAsync("held", "free");
        using var _ = device;
        await AgeAsync(Id(user, "held"), 91);
        await AgeAsync(Id(user, "free"), 91);
        await using var writer = await db.DataSource.OpenConnectionAsync(TestTimeout.Token);
        await using var transaction = await writer.BeginTransactionAsync(TestTimeout.Token);
        await using (var hold = new NpgsqlCommand("SELECT 1 FROM highlights WHERE id = $1 FOR UPDATE", writer, transaction))
        {
            hold.Parameters.Add(new NpgsqlParameter<string> { TypedValue = Id(user, "held") });
            await hold.ExecuteScalarAsync(TestTimeout.Token);
        }

        // Bounded: a purge that waited on the lock would be cancelled here and fail the test.
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        await new TombstonePurge(db.DataSource).PurgeAsync(Cutoff, 100, bound.Token);
        var whileHeld = await db.StoredAsync(user);
        await transaction.RollbackAsync(TestTimeout.Token);
        await new TombstonePurge(db.DataSource).PurgeAsync(Cutoff, 100, TestTimeout.Token);

        Assert.Equal([Id(user, "held"), Id(user, "live")], whileHeld.Keys.Order(StringComparer.Ordinal));
        Assert.Equal([Id(user, "live")], (await db.StoredAsync(user)).Keys);
    }

    [Fact]
    public async Task TheHostedJobPurgesExpiredTombstonesOnItsInterval()
    {
        var (user, device) = await UserWithTombstonesAsync("expired");
        using var _ = device;
        await AgeAsync(Id(user, "expired"), 91);
        var settings = TestTokens.ServiceSettings(db.ConnectionString);
        settings["Sync:PurgeIntervalSeconds"] = "1";
        await using var service = new SyncApiFactory(settings);
        using var client = service.CreateClient();

        var deadline = DateTime.UtcNow.AddSeconds(20);
        while ((await db.StoredAsync(user)).ContainsKey(Id(user, "expired")) && DateTime.UtcNow < deadline)
        {
            await Task.Delay(200, TestTimeout.Token);
        }

        Assert.Equal([Id(user, "live")], (await db.StoredAsync(user)).Keys);
    }
}
