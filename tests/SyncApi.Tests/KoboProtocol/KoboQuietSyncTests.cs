using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// A Kobo e-reader's scheduled library sync that finds nothing new costs the database what a native one
/// does: one statement, no write (counted with pg_stat_statements); the e-reader's sync is still recorded
/// as its linking device's, written behind with the instance's other pulls.
/// </summary>
public sealed class KoboQuietSyncTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    [Fact]
    public async Task ACaughtUpLibrarySyncSendsOneStatementAndTheLinkingDeviceIsSeenWhenThePullsAreWritten()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 30);
        using var service = db.ServiceWith(new() { ["Sync:DevicePositionFlushMs"] = "60000" });
        using var kobo = await db.LinkAsync(user, service);
        var (items, token, _) = await kobo.SyncAsync(null);
        Assert.Equal(30, items.Count);
        // The linking device has never pulled; the e-reader's syncs are held, not yet written.
        Assert.Null(await LastSyncAsync(user));

        var before = await DatabaseStatements.SnapshotAsync(db.DataSource);
        for (var i = 0; i < 10; i++)
        {
            var page = await kobo.SyncPageAsync(token);
            Assert.Empty(page.Items);
            Assert.False(page.Continue);
            token = page.Token;
        }

        var statement = Assert.Single((await DatabaseStatements.SnapshotAsync(db.DataSource)).Since(before));
        Assert.Equal("SELECT change_seq FROM users WHERE user_no = $1", statement.Query);
        Assert.Equal(10, statement.Calls);
        Assert.Equal(0, statement.WalRecords);
        Assert.Null(await LastSyncAsync(user));

        using var phone = service.CreateClient().WithToken(TestTokens.For(user, "phone"));
        using var list = await phone.GetAsync(new Uri($"/v1/users/{user}/devices", UriKind.Relative), TestTimeout.Token);
        Assert.True(list.IsSuccessStatusCode);
        Assert.NotNull(await LastSyncAsync(user));
    }

    private async Task<DateTimeOffset?> LastSyncAsync(long user)
    {
        await using var command = db.DataSource.CreateCommand("SELECT last_sync_at FROM devices WHERE user_no = $1 AND device_id = 'phone'");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        return await command.ExecuteScalarAsync(TestTimeout.Token) is DateTime at ? new DateTimeOffset(at, TimeSpan.Zero) : null;
    }
}
