using System.Net;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>POST /v1/users/{userNo}/kobo-links and the link's authentication of /kobo/{secret}/, on a real PostgreSQL.</summary>
public sealed class KoboLinkTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static async Task<HttpStatusCode> InitializeAsync(HttpClient client, string root)
    {
        using var response = await client.GetAsync(new Uri(root + "/v1/initialization", UriKind.Relative), TestTimeout.Token);
        return response.StatusCode;
    }

    private async Task<(string? Hash, DateTimeOffset? RevokedAt, string Device)> StoredLinkAsync(long user)
    {
        await using var command = db.DataSource.CreateCommand(
            "SELECT encode(secret_hash, 'hex'), revoked_at, device_id FROM kobo_links WHERE user_no = $1 ORDER BY created_at DESC LIMIT 1");
        command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        Assert.True(await reader.ReadAsync(TestTimeout.Token));
        return (reader.GetString(0), reader.IsDBNull(1) ? null : reader.GetFieldValue<DateTimeOffset>(1), reader.GetString(2));
    }

    [Fact]
    public async Task ALinkAnswers201WithTheApiEndpointAndOnlyTheSecretsHashIsStored()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");

        using var response = await phone.RequestLinkAsync(user);

        Assert.Equal(HttpStatusCode.Created, response.StatusCode);
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        using var body = JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token));
        var endpoint = body.RootElement.GetProperty("apiEndpoint").GetString()!;
        Assert.Single(body.RootElement.EnumerateObject());
        // No public base configured, and no connection of its own in process: the REST listener's address.
        Assert.Matches("^http://127.0.0.1:5080/kobo/[A-Za-z0-9_-]{43}$", endpoint);
        var secret = KoboLinks.SecretOf(endpoint);
        var stored = await StoredLinkAsync(user);
        Assert.Equal(Convert.ToHexStringLower(SHA256.HashData(Encoding.ASCII.GetBytes(secret))), stored.Hash);
        Assert.Equal("phone", stored.Device);
        Assert.Null(stored.RevokedAt);
        Assert.Contains("phone", await db.DeviceIdsAsync(user));
        Assert.Equal(HttpStatusCode.OK, await InitializeAsync(db.Factory.CreateClient(), KoboLinks.RootOf(endpoint)));
    }

    [Fact]
    public async Task EachLinkHasItsOwnSecret()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");

        var first = await phone.LinkAsync(user);
        var second = await phone.LinkAsync(user);

        Assert.NotEqual(first, second);
    }

    [Fact]
    public async Task ADeviceKeepsItsFiveNewestLinksAndASixthRevokesTheOldest()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        var roots = new List<string>();
        for (var i = 0; i < 6; i++)
        {
            roots.Add(KoboLinks.RootOf(await phone.LinkAsync(user)));
            await Task.Delay(20, TestTimeout.Token); // distinct creation times
        }

        using var kobo = db.Factory.CreateClient();
        Assert.Equal(HttpStatusCode.Unauthorized, await InitializeAsync(kobo, roots[0]));
        foreach (var root in roots.Skip(1))
        {
            Assert.Equal(HttpStatusCode.OK, await InitializeAsync(kobo, root));
        }
    }

    [Fact]
    public async Task ALinkForAnotherUserIsForbiddenAndAnAnonymousCallerIsRefused()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        using var anonymous = db.Factory.CreateClient();

        using var other = await phone.RequestLinkAsync(db.NewUser());
        using var nobody = await anonymous.RequestLinkAsync(user);

        Assert.Equal(HttpStatusCode.Forbidden, other.StatusCode);
        Assert.Equal("application/problem+json", other.Content.Headers.ContentType?.MediaType);
        Assert.Equal(HttpStatusCode.Unauthorized, nobody.StatusCode);
    }

    [Fact]
    public async Task ALinkForAUserThatDoesNotExistIsNotFound()
    {
        using var stranger = db.Factory.CreateClient().WithToken(TestTokens.For(987_654));

        using var response = await stranger.RequestLinkAsync(987_654);

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
    }

    [Fact]
    public async Task TheApiEndpointIsBuiltOnTheConfiguredPublicBaseUrl()
    {
        using var service = db.ServiceWith(new() { ["Kobo:PublicBaseUrl"] = "https://books.example.org/sync/" });
        var user = db.NewUser();
        using var phone = service.CreateClient().WithToken(TestTokens.For(user, "phone"));

        var endpoint = await phone.LinkAsync(user);

        Assert.Matches("^https://books.example.org/sync/kobo/[A-Za-z0-9_-]{43}$", endpoint);
    }

    [Theory]
    [InlineData("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")]
    [InlineData("short")]
    [InlineData("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%2B")]
    public async Task AnUnknownOrMalformedSecretIsRefusedBeforeTheBodyIsRead(string secret)
    {
        using var client = db.Factory.CreateClient();
        using var body = new StringContent("{\"UserKey\": ", Encoding.UTF8, "application/json");

        using var init = await client.GetAsync(new Uri($"/kobo/{secret}/v1/initialization", UriKind.Relative), TestTimeout.Token);
        using var auth = await client.PostAsync(new Uri($"/kobo/{secret}/v1/auth/device", UriKind.Relative), body, TestTimeout.Token);
        using var unknown = await client.GetAsync(new Uri($"/kobo/{secret}/v1/no/such/call", UriKind.Relative), TestTimeout.Token);

        Assert.All([init, auth, unknown], r => Assert.Equal(HttpStatusCode.Unauthorized, r.StatusCode));
        Assert.Equal("application/problem+json", auth.Content.Headers.ContentType?.MediaType);
    }

    [Fact]
    public async Task RevokingTheLinkingDeviceRevokesItsLinksForGood()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        using var laptop = db.Device(user, "laptop");
        var endpoint = await phone.LinkAsync(user);
        var root = KoboLinks.RootOf(endpoint);
        using var kobo = db.Factory.CreateClient();
        Assert.Equal(HttpStatusCode.OK, await InitializeAsync(kobo, root)); // the link is now cached
        await laptop.PullPageAsync(user, null);

        using (var revoke = await laptop.DeleteAsync(new Uri($"/v1/users/{user}/devices/phone", UriKind.Relative), TestTimeout.Token))
        {
            Assert.Equal(HttpStatusCode.NoContent, revoke.StatusCode);
        }

        Assert.Equal(HttpStatusCode.Unauthorized, await InitializeAsync(kobo, root));
        Assert.NotNull((await StoredLinkAsync(user)).RevokedAt);

        // The device's revocation lapses and is purged, and the phone comes back: a new instance (no
        // cache, no revocation list) still refuses the link, and a link the phone makes now works.
        await using (var purge = db.DataSource.CreateCommand("DELETE FROM devices WHERE user_no = $1 AND device_id = 'phone'"))
        {
            purge.Parameters.Add(new NpgsqlParameter<long> { TypedValue = user });
            await purge.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        using var fresh = db.ServiceWith(new());
        using var freshKobo = fresh.CreateClient();
        Assert.Equal(HttpStatusCode.Unauthorized, await InitializeAsync(freshKobo, root));
        using var returned = fresh.CreateClient().WithToken(TestTokens.For(user, "phone"));
        Assert.Equal(HttpStatusCode.OK, await InitializeAsync(freshKobo, KoboLinks.RootOf(await returned.LinkAsync(user))));
    }

    [Fact]
    public async Task ALinkRevokedThroughAnotherInstanceStopsWorkingWithinTheRevocationRefresh()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        var root = KoboLinks.RootOf(await phone.LinkAsync(user));
        using var other = db.ServiceWith(new() { ["Sync:RevocationRefreshSeconds"] = "1" });
        using var kobo = other.CreateClient();
        Assert.Equal(HttpStatusCode.OK, await InitializeAsync(kobo, root)); // cached on the other instance

        using (var revoke = await phone.DeleteAsync(new Uri($"/v1/users/{user}/devices/phone", UriKind.Relative), TestTimeout.Token))
        {
            Assert.Equal(HttpStatusCode.NoContent, revoke.StatusCode);
        }

        var deadline = DateTime.UtcNow + TimeSpan.FromSeconds(10);
        HttpStatusCode status;
        do
        {
            await Task.Delay(200, TestTimeout.Token);
            status = await InitializeAsync(kobo, root);
        }
        while (status == HttpStatusCode.OK && DateTime.UtcNow < deadline);

        Assert.Equal(HttpStatusCode.Unauthorized, status);
    }

    [Fact]
    public async Task AFreshLinkCountsAsTheLinkingDevicesNewTokenAfterARevocation()
    {
        // No clock skew accepted: a token issued after the revocation works from the next second on.
        using var service = db.ServiceWith(new() { ["Auth:ClockSkewSeconds"] = "0" });
        var user = db.NewUser();
        using var laptop = service.CreateClient().WithToken(TestTokens.For(user, "laptop"));
        using var phone = service.CreateClient().WithToken(TestTokens.For(user, "phone"));
        await phone.LinkAsync(user);
        using (var revoke = await laptop.DeleteAsync(new Uri($"/v1/users/{user}/devices/phone", UriKind.Relative), TestTimeout.Token))
        {
            Assert.Equal(HttpStatusCode.NoContent, revoke.StatusCode);
        }

        // Re-enrolled: a token issued after the revocation, and a link made with it.
        await Task.Delay(1100, TestTimeout.Token);
        using var reenrolled = service.CreateClient().WithToken(TestTokens.For(user, "phone"));
        var root = KoboLinks.RootOf(await reenrolled.LinkAsync(user));

        Assert.Equal(HttpStatusCode.OK, await InitializeAsync(service.CreateClient(), root));
    }
}
