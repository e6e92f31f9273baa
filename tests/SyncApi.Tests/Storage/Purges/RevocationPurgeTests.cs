using Kobo.Sync.Storage.Purges;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Storage.Purges;

/// <summary>The purge of lapsed device revocations on a real PostgreSQL: what lapses, what stays, batches.</summary>
public sealed class RevocationPurgeTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    /// <summary>Stores a device as revoked <paramref name="revokedHoursAgo"/> hours ago, having last pulled <paramref name="pulledHoursAgo"/> hours ago.</summary>
    private async Task DeviceAsync(long user, string device, double pulledHoursAgo, double? revokedHoursAgo)
    {
        await using var command = db.DataSource.CreateCommand("""
            INSERT INTO devices (user_no, device_id, first_seen_at, last_sync_at, revoked_at)
            VALUES ($1, $2, now() - interval '1 day', now() - make_interval(secs => $3 * 3600),
                    now() - make_interval(secs => $4 * 3600))
            """);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = device });
        command.Parameters.Add(new NpgsqlParameter<double> { TypedValue = pulledHoursAgo });
        command.Parameters.Add(new NpgsqlParameter { Value = (object?)revokedHoursAgo ?? DBNull.Value, NpgsqlDbType = NpgsqlTypes.NpgsqlDbType.Double });
        await command.ExecuteNonQueryAsync(TestTimeout.Token);
    }

    private async Task<List<string>> RevokedAsync(long user)
    {
        var ids = new List<string>();
        await using var command = db.DataSource.CreateCommand("SELECT device_id FROM devices WHERE user_no = $1 AND revoked_at IS NOT NULL ORDER BY device_id COLLATE \"C\"");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        while (await reader.ReadAsync(TestTimeout.Token))
        {
            ids.Add(reader.GetString(0));
        }

        return ids;
    }

    [Fact]
    public async Task ALapsedRevocationForgetsADeviceThatNeverCameBackAndKeepsOneThatWasEnrolledAgain()
    {
        var user = db.NewUser();
        await DeviceAsync(user, "lost", pulledHoursAgo: 5, revokedHoursAgo: 3);
        await DeviceAsync(user, "lost-too", pulledHoursAgo: 5, revokedHoursAgo: 2.5);
        await DeviceAsync(user, "re-enrolled", pulledHoursAgo: 0.5, revokedHoursAgo: 2);
        await DeviceAsync(user, "recently-revoked", pulledHoursAgo: 5, revokedHoursAgo: 0.5);
        await DeviceAsync(user, "never-revoked", pulledHoursAgo: 4, revokedHoursAgo: null);

        var purged = await new RevocationPurge(db.DataSource).PurgeAsync(DateTimeOffset.UtcNow.AddHours(-1), batchSize: 2, TestTimeout.Token);

        Assert.Equal(3, purged);
        Assert.Equal(["never-revoked", "re-enrolled", "recently-revoked"], await db.DeviceIdsAsync(user));
        Assert.Equal(["recently-revoked"], await RevokedAsync(user));
    }
}
