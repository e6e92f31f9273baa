using System.Net;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// A revocation and a link agree on every instance: a revoked token makes no link anywhere, and a
/// replaced or revoked link stops working at once here and within the revocation refresh elsewhere.
/// </summary>
public sealed class KoboLinkRevocationTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static async Task<HttpStatusCode> InitializeAsync(HttpClient client, string root)
    {
        using var response = await client.GetAsync(new Uri(root + "/v1/initialization", UriKind.Relative), TestTimeout.Token);
        return response.StatusCode;
    }

    private static async Task RevokeAsync(HttpClient by, long user, string device)
    {
        using var revoke = await by.DeleteAsync(new Uri($"/v1/users/{user}/devices/{device}", UriKind.Relative), TestTimeout.Token);
        Assert.Equal(HttpStatusCode.NoContent, revoke.StatusCode);
    }

    private async Task<long> LiveLinksAsync(long user)
    {
        await using var command = db.DataSource.CreateCommand("SELECT count(*) FROM kobo_links WHERE user_no = $1 AND revoked_at IS NULL");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        return (long)(await command.ExecuteScalarAsync(TestTimeout.Token))!;
    }

    /// <summary>Asks until the answer is no longer 200 or the time is up; returns the last status.</summary>
    private static async Task<HttpStatusCode> StatusWithinAsync(HttpClient kobo, string root, TimeSpan within)
    {
        var deadline = DateTime.UtcNow + within;
        HttpStatusCode status;
        do
        {
            await Task.Delay(200, TestTimeout.Token);
            status = await InitializeAsync(kobo, root);
        }
        while (status == HttpStatusCode.OK && DateTime.UtcNow < deadline);

        return status;
    }

    [Fact]
    public async Task ARevokedTokenMakesNoLinkOnAnInstanceThatHasNotHeardOfTheRevocationYet()
    {
        // The other instance loads the revocations at its start, then not for an hour.
        using var other = db.ServiceWith(new() { ["Sync:RevocationRefreshSeconds"] = "3600" });
        var user = db.NewUser();
        using var phoneThere = other.CreateClient().WithToken(TestTokens.For(user, "phone"));
        await phoneThere.PullPageAsync(user, null);
        using var laptop = db.Device(user, "laptop");

        await RevokeAsync(laptop, user, "phone");
        using var response = await phoneThere.RequestLinkAsync(user);

        Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal(0, await LiveLinksAsync(user));
    }

    [Fact]
    public async Task ATokenIssuedWithinTheClockSkewAfterARevocationMakesNoLinkAnywhere()
    {
        // Minted before the revocation by an issuer whose clock runs 20 s ahead (the skew is 30 s).
        using var other = db.ServiceWith(new() { ["Sync:RevocationRefreshSeconds"] = "3600" });
        var user = db.NewUser();
        var ahead = TestTokens.For(user, "phone", issuedAt: DateTime.UtcNow.AddSeconds(20));
        using var phoneThere = other.CreateClient().WithToken(ahead);
        using var phoneHere = db.Factory.CreateClient().WithToken(ahead);
        await phoneThere.PullPageAsync(user, null);
        using var laptop = db.Device(user, "laptop");

        await RevokeAsync(laptop, user, "phone");
        using var there = await phoneThere.RequestLinkAsync(user);
        using var here = await phoneHere.RequestLinkAsync(user);

        Assert.Equal(HttpStatusCode.Unauthorized, there.StatusCode);
        Assert.Equal(HttpStatusCode.Unauthorized, here.StatusCode);
        Assert.Equal(0, await LiveLinksAsync(user));
    }

    [Fact]
    public async Task ALinkReplacedByANewerOneStopsWorkingAtOnceEvenWhenCached()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        using var kobo = db.Factory.CreateClient();
        var first = KoboLinks.RootOf(await phone.LinkAsync(user));
        Assert.Equal(HttpStatusCode.OK, await InitializeAsync(kobo, first)); // cached now

        for (var i = 0; i < 5; i++)
        {
            await phone.LinkAsync(user);
        }

        Assert.Equal(HttpStatusCode.Unauthorized, await InitializeAsync(kobo, first));
    }

    [Fact]
    public async Task ALinkReplacedThroughAnotherInstanceStopsWorkingWithinTheRevocationRefresh()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        var first = KoboLinks.RootOf(await phone.LinkAsync(user));
        using var other = db.ServiceWith(new() { ["Sync:RevocationRefreshSeconds"] = "1" });
        using var kobo = other.CreateClient();
        Assert.Equal(HttpStatusCode.OK, await InitializeAsync(kobo, first)); // cached on the other instance

        for (var i = 0; i < 5; i++)
        {
            await phone.LinkAsync(user);
        }

        Assert.Equal(HttpStatusCode.Unauthorized, await StatusWithinAsync(kobo, first, TimeSpan.FromSeconds(15)));
    }

    [Fact]
    public async Task AUsersLinksStayWithinTheBoundsHoweverManyAreMade()
    {
        var user = db.NewUser();
        var devices = new[] { "phone", "laptop", "tablet", "desk", "spare" };
        for (var i = 0; i < 60; i++)
        {
            using var device = db.Device(user, devices[i % devices.Length]);
            await device.LinkAsync(user);
        }

        await using var command = db.DataSource.CreateCommand("""
            SELECT count(*), count(*) FILTER (WHERE revoked_at IS NULL),
                   (SELECT coalesce(max(n), 0) FROM (SELECT count(*) AS n FROM kobo_links WHERE user_no = $1 AND revoked_at IS NULL GROUP BY device_id) d)
            FROM kobo_links WHERE user_no = $1
            """);
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        Assert.True(await reader.ReadAsync(TestTimeout.Token));
        Assert.Equal(40, reader.GetInt64(0));  // 20 live and the 20 newest revoked
        Assert.Equal(20, reader.GetInt64(1));
        Assert.InRange(reader.GetInt64(2), 1, 5); // at most 5 live links per device
    }

    [Fact]
    public async Task RevokedLinksArePurgedWithTheLapsedDeviceRevocations()
    {
        var user = db.NewUser();
        await using (var insert = db.DataSource.CreateCommand("""
            INSERT INTO kobo_links (secret_hash, user_no, device_id, created_at, revoked_at) VALUES
                (sha256(('old ' || $1)::bytea), $1, 'phone', now() - interval '40 days', now() - interval '31 days'),
                (sha256(('recent ' || $1)::bytea), $1, 'phone', now() - interval '2 days', now() - interval '1 day'),
                (sha256(('live ' || $1)::bytea), $1, 'phone', now() - interval '40 days', NULL)
            """))
        {
            insert.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
            await insert.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        await new Kobo.Sync.Storage.Purges.RevocationPurge(db.DataSource).PurgeAsync(DateTimeOffset.UtcNow.AddDays(-30), 100, TestTimeout.Token);

        await using var count = db.DataSource.CreateCommand("SELECT count(*), count(*) FILTER (WHERE revoked_at IS NULL) FROM kobo_links WHERE user_no = $1");
        count.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        await using var reader = await count.ExecuteReaderAsync(TestTimeout.Token);
        Assert.True(await reader.ReadAsync(TestTimeout.Token));
        Assert.Equal(2, reader.GetInt64(0));
        Assert.Equal(1, reader.GetInt64(1));
    }
}
