using Kobo.Sync.Storage.Purges;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.CollectionCalls;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Storage.Purges;

/// <summary>The tombstone purge of deleted collections on a real PostgreSQL: retention, and the sync tokens it outdates.</summary>
public sealed class CollectionTombstonePurgeTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    private static DateTimeOffset Cutoff => DateTimeOffset.UtcNow - TimeSpan.FromDays(90);

    /// <summary>Makes a collection look last written <paramref name="days"/> days ago.</summary>
    private async Task AgeAsync(Guid id, int days)
    {
        await using var command = db.DataSource.CreateCommand("UPDATE collections SET updated_at = now() - make_interval(days => $2) WHERE collection_id = $1");
        command.Parameters.Add(new NpgsqlParameter<Guid> { TypedValue = id });
        command.Parameters.Add(new NpgsqlParameter<int> { TypedValue = days });
        Assert.Equal(1, await command.ExecuteNonQueryAsync(TestTimeout.Token));
    }

    [Fact]
    public async Task OnlyDeletedCollectionsOlderThanTheRetentionArePurgedAndATokenFromBeforeOneIs410()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        Guid gone = Guid.NewGuid(), recent = Guid.NewGuid(), live = Guid.NewGuid();
        await device.PushCollectionsAsync(user, [Upsert(gone, "gone", T0), Upsert(recent, "recent", T0), Upsert(live, "live", T0)]);
        var (_, before) = await device.PullAllAsync(user);
        await device.PushCollectionsAsync(user, [DeleteCollection(gone, T0.AddMinutes(1)), DeleteCollection(recent, T0.AddMinutes(1))]);
        var (_, afterDeletes) = await device.PullAllAsync(user);
        await AgeAsync(gone, 91);
        await AgeAsync(recent, 89);
        await AgeAsync(live, 91);

        var purged = await new TombstonePurge(db.DataSource).PurgeAsync(Cutoff, 100, TestTimeout.Token);

        Assert.True(purged >= 1, $"purged {purged}");
        await device.GetCollectionAsync(user, gone.ToString(), 404);
        Assert.True((await device.GetCollectionAsync(user, recent.ToString())).GetProperty("deleted").GetBoolean());
        Assert.Equal(live.ToString("D"), Assert.Single(await device.ListCollectionsAsync(user)).Str("id"));
        var problem = await device.PullPageAsync(user, before, expect: 410);
        Assert.True(problem.GetProperty("errors").TryGetProperty("since", out _));
        Assert.Empty((await device.PullAllAsync(user, afterDeletes)).Changes);
        var (fullSync, _) = await device.PullAllAsync(user);
        Assert.Equal(new[] { live.ToString("D"), recent.ToString("D") }.Order(), fullSync.Select(c => c.Str("id")).Order());
    }
}
