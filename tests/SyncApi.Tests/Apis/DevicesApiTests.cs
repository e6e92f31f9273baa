using System.Net;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>GET /v1/users/{userNo}/devices and DELETE /v1/users/{userNo}/devices/{deviceId} on a real PostgreSQL.</summary>
public sealed class DevicesApiTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static async Task<JsonElement> DeviceAsync(HttpClient client, long user, string deviceId)
    {
        var list = await client.GetJsonAsync($"/v1/users/{user}/devices", 200);
        return list.GetProperty("devices").EnumerateArray().Single(d => d.Str("deviceId") == deviceId);
    }

    private static async Task<HttpStatusCode> RevokeAsync(HttpClient client, long user, string deviceId)
    {
        using var response = await client.DeleteAsync(new Uri($"/v1/users/{user}/devices/{deviceId}", UriKind.Relative), TestTimeout.Token);
        return response.StatusCode;
    }

    /// <summary>Pulls until the answer is no longer 200 or the time is up; returns the last status.</summary>
    private static async Task<HttpStatusCode> StatusWithinAsync(HttpClient client, long user, TimeSpan within)
    {
        var deadline = DateTime.UtcNow + within;
        HttpStatusCode status;
        do
        {
            await Task.Delay(200, TestTimeout.Token);
            using var response = await client.GetAsync(new Uri($"/v1/users/{user}/changes", UriKind.Relative), TestTimeout.Token);
            status = response.StatusCode;
        }
        while (status == HttpStatusCode.OK && DateTime.UtcNow < deadline);

        return status;
    }

    [Fact]
    public async Task EachPullRecordsTheDevicesAcknowledgedPositionAndTime()
    {
        var user = db.NewUser();
        using var device = db.Device(user, "reader-1");
        await device.PushAsync(user, Upsert("a", "t", DateTimeOffset.UtcNow));
        var (_, token) = await device.PullAllAsync(user);
        var afterFirst = await DeviceAsync(device, user, "reader-1");

        await device.PullAllAsync(user, token);
        var afterSecond = await DeviceAsync(device, user, "reader-1");

        // The first pull came back with no token (position 0); the second with the token that covers "a".
        Assert.Equal(0, afterFirst.GetProperty("position").GetInt64());
        Assert.True(afterSecond.GetProperty("position").GetInt64() > 0);
        Assert.True(afterSecond.GetProperty("lastSyncAt").GetDateTimeOffset() >= afterFirst.GetProperty("lastSyncAt").GetDateTimeOffset());
        Assert.False(afterSecond.TryGetProperty("revokedAt", out _));
    }

    [Fact]
    public async Task ARevokedDevicesTokenIsRefusedAtOnceEvenWhenAlreadyValidated()
    {
        var user = db.NewUser();
        using var lost = db.Device(user, "lost");
        using var kept = db.Device(user, "kept");
        await lost.PullPageAsync(user, null); // its token is now in the validated-token cache
        await kept.PullPageAsync(user, null);

        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(kept, user, "lost"));

        await lost.PullPageAsync(user, null, expect: 401);
        using var push = await lost.PushRawAsync(user, Upsert("x", "t", DateTimeOffset.UtcNow));
        Assert.Equal(HttpStatusCode.Unauthorized, push.StatusCode);
        await kept.PullPageAsync(user, null);
        Assert.True((await DeviceAsync(kept, user, "lost")).TryGetProperty("revokedAt", out _));
        Assert.Empty(await db.StoredAsync(user));
    }

    /// <summary>
    /// An instance that accepts no clock skew: a token issued after a revocation then works from the
    /// next second on, where the default skew (30 s) would make a test wait that long (<see cref="ATokenIssuedWithinTheClockSkewAfterTheRevocationIsRefused"/>).
    /// </summary>
    private SyncApiFactory WithoutSkew() => db.ServiceWith(new() { ["Auth:ClockSkewSeconds"] = "0" });

    [Fact]
    public async Task ATokenIssuedAfterTheRevocationWorks()
    {
        using var service = WithoutSkew();
        var user = db.NewUser();
        using var owner = service.CreateClient().WithToken(TestTokens.For(user, "owner"));
        using var revoked = service.CreateClient().WithToken(TestTokens.For(user, "re-enrolled"));
        await revoked.PullPageAsync(user, null);
        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(owner, user, "re-enrolled"));
        await Task.Delay(TimeSpan.FromSeconds(1.1), TestTimeout.Token); // token issue times have whole seconds

        using var fresh = service.CreateClient().WithToken(TestTokens.For(user, "re-enrolled"));

        await fresh.PullPageAsync(user, null);
    }

    [Fact]
    public async Task ATokenIssuedWithinTheClockSkewAfterTheRevocationIsRefused()
    {
        // A token minted by an issuer whose clock runs 20 s ahead, before the revocation: it says it was issued after it.
        var user = db.NewUser();
        using var owner = db.Device(user, "owner");
        using var ahead = db.Factory.CreateClient().WithToken(TestTokens.For(user, "reader", issuedAt: DateTime.UtcNow.AddSeconds(20)));
        await ahead.PullPageAsync(user, null);

        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(owner, user, "reader"));

        await ahead.PullPageAsync(user, null, expect: 401);
    }

    [Fact]
    public async Task RevokingAReEnrolledDeviceAgainRefusesItsNewToken()
    {
        using var service = WithoutSkew();
        var user = db.NewUser();
        using var owner = service.CreateClient().WithToken(TestTokens.For(user, "owner"));
        using var first = service.CreateClient().WithToken(TestTokens.For(user, "reader"));
        await first.PullPageAsync(user, null);
        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(owner, user, "reader"));
        var firstRevocation = (await DeviceAsync(owner, user, "reader")).GetProperty("revokedAt").GetDateTimeOffset();
        await Task.Delay(TimeSpan.FromSeconds(1.1), TestTimeout.Token); // token issue times have whole seconds
        using var reEnrolled = service.CreateClient().WithToken(TestTokens.For(user, "reader"));
        await reEnrolled.PullPageAsync(user, null);
        await Task.Delay(TimeSpan.FromSeconds(1.1), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(owner, user, "reader"));

        await reEnrolled.PullPageAsync(user, null, expect: 401);
        Assert.True((await DeviceAsync(owner, user, "reader")).GetProperty("revokedAt").GetDateTimeOffset() > firstRevocation);
    }

    [Fact]
    public async Task ASecondRevocationOfAReEnrolledDeviceReachesAnotherInstance()
    {
        var user = db.NewUser();
        var settings = TestTokens.ServiceSettings(db.ConnectionString);
        settings["Sync:RevocationRefreshSeconds"] = "1";
        settings["Auth:ClockSkewSeconds"] = "0";
        await using var other = new SyncApiFactory(settings);
        using var owner = db.Device(user, "owner");
        using var first = db.Device(user, "reader");
        await first.PullPageAsync(user, null);
        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(owner, user, "reader"));
        await Task.Delay(TimeSpan.FromSeconds(1.1), TestTimeout.Token);
        using var onOther = other.CreateClient().WithToken(TestTokens.For(user, "reader"));
        await onOther.PullPageAsync(user, null);
        await Task.Delay(TimeSpan.FromSeconds(1.1), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(owner, user, "reader"));

        Assert.Equal(HttpStatusCode.Unauthorized, await StatusWithinAsync(onOther, user, TimeSpan.FromSeconds(15)));
    }

    [Fact]
    public async Task ARevocationThroughAnotherInstanceReachesThisOneWithinItsRefreshInterval()
    {
        var user = db.NewUser();
        var settings = TestTokens.ServiceSettings(db.ConnectionString);
        settings["Sync:RevocationRefreshSeconds"] = "1";
        await using var other = new SyncApiFactory(settings);
        using var onOther = other.CreateClient().WithToken(TestTokens.For(user, "stolen"));
        await onOther.PullPageAsync(user, null);
        using var owner = db.Device(user, "owner");

        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(owner, user, "stolen"));

        Assert.Equal(HttpStatusCode.Unauthorized, await StatusWithinAsync(onOther, user, TimeSpan.FromSeconds(15)));
    }

    [Fact]
    public async Task RevokingADeviceTheServiceHasNeverSeenPullIs404AndStoresNothing()
    {
        var user = db.NewUser();
        using var owner = db.Device(user, "owner");
        await owner.PullPageAsync(user, null);

        using var response = await owner.DeleteAsync(new Uri($"/v1/users/{user}/devices/made-up", UriKind.Relative), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.Equal(["owner"], await db.DeviceIdsAsync(user));
    }

    [Fact]
    public async Task AtTheDeviceLimitANewDeviceTakesThePlaceOfTheLeastRecentlySeenOneAndNoneIsLockedOut()
    {
        var user = db.NewUser();
        await using var service = db.ServiceWith(new() { ["Sync:MaxDevicesPerUser"] = "3" });
        foreach (var device in new[] { "a", "b", "c", "a" })
        {
            using var client = service.CreateClient().WithToken(TestTokens.For(user, device));
            await client.PullPageAsync(user, null);
        }

        using var d = service.CreateClient().WithToken(TestTokens.For(user, "d"));
        await d.PullPageAsync(user, null);
        var afterD = await db.DeviceIdsAsync(user);
        using var b = service.CreateClient().WithToken(TestTokens.For(user, "b"));
        await b.PullPageAsync(user, null);

        Assert.Equal(["a", "c", "d"], afterD);
        Assert.Equal(["a", "b", "d"], await db.DeviceIdsAsync(user));
    }

    [Fact]
    public async Task RevokedDevicesKeepTheirPlaceAndOnePlaceIsAlwaysLeftForANewDevice()
    {
        var user = db.NewUser();
        await using var service = db.ServiceWith(new() { ["Sync:MaxDevicesPerUser"] = "3" });
        using var owner = service.CreateClient().WithToken(TestTokens.For(user, "owner"));
        foreach (var device in new[] { "a", "b" })
        {
            using var client = service.CreateClient().WithToken(TestTokens.For(user, device));
            await client.PullPageAsync(user, null);
        }

        await owner.PullPageAsync(user, null);
        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(owner, user, "a"));
        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(owner, user, "b"));

        using var third = await owner.DeleteAsync(new Uri($"/v1/users/{user}/devices/owner", UriKind.Relative), TestTimeout.Token);
        var problem = JsonDocument.Parse(await third.Content.ReadAsStringAsync(TestTimeout.Token)).RootElement;
        using var newcomer = service.CreateClient().WithToken(TestTokens.For(user, "new"));
        await newcomer.PullPageAsync(user, null);

        Assert.Equal(HttpStatusCode.Conflict, third.StatusCode);
        Assert.Contains("2 revoked devices", problem.Str("detail"), StringComparison.Ordinal);
        // The owner, the only device not revoked, made room; it still works and takes a place back.
        Assert.Equal(["a", "b", "new"], await db.DeviceIdsAsync(user));
        await owner.PullPageAsync(user, null);
        Assert.Equal(["a", "b", "owner"], await db.DeviceIdsAsync(user));
        // A device already revoked may be revoked again at the limit.
        Assert.Equal(HttpStatusCode.NoContent, await RevokeAsync(owner, user, "a"));
    }

    [Fact]
    public async Task TheDeviceListComesInPagesMostRecentlySyncedFirstAndAWalkSeesEachDeviceOnce()
    {
        var user = db.NewUser();
        var pulled = Enumerable.Range(0, 11).Select(i => $"reader-{i:D2}").ToArray();
        foreach (var device in pulled)
        {
            using var client = db.Device(user, device);
            await client.PullPageAsync(user, null);
        }

        // Devices revoked before they ever pulled, as stored before a device had to be known to be revoked.
        await using (var legacy = db.DataSource.CreateCommand("INSERT INTO devices (user_no, device_id, revoked_at) VALUES ($1, 'old-b', now()), ($1, 'old-a', now())"))
        {
            legacy.Parameters.Add(new Npgsql.NpgsqlParameter<long> { TypedValue = user });
            await legacy.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        using var owner = db.Device(user, pulled[^1]);
        var first = await owner.GetJsonAsync($"/v1/users/{user}/devices", 200);
        var walked = new List<string>();
        string? cursor = null;
        do
        {
            var page = await owner.GetJsonAsync(
                $"/v1/users/{user}/devices?pageSize=1" + (cursor is null ? string.Empty : "&cursor=" + Uri.EscapeDataString(cursor)), 200);
            walked.AddRange(page.GetProperty("devices").EnumerateArray().Select(d => d.Str("deviceId")));
            cursor = page.GetProperty("nextCursor").GetString();
        }
        while (cursor is not null);

        Assert.Equal(pulled.Reverse().Take(10), first.GetProperty("devices").EnumerateArray().Select(d => d.Str("deviceId")));
        Assert.Equal(JsonValueKind.String, first.GetProperty("nextCursor").ValueKind);
        Assert.Equal([.. pulled.Reverse(), "old-a", "old-b"], walked);
    }

    [Theory]
    [InlineData("pageSize=0", "pageSize")]
    [InlineData("pageSize=101", "pageSize")]
    [InlineData("pageSize=ten", "pageSize")]
    [InlineData("cursor=bm90LWEtY3Vyc29y.AAAAAAAAAAAAAAAAAAAAAA", "cursor")]
    public async Task ABadPageSizeOrAMadeUpCursorIs400NamingTheField(string query, string field)
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        var problem = await device.GetJsonAsync($"/v1/users/{user}/devices?{query}", 400);

        Assert.True(problem.GetProperty("errors").TryGetProperty(field, out _), problem.ToString());
    }

    [Fact]
    public async Task ACursorIssuedForAnotherUserOrForHighlightsIsRefused()
    {
        var user = db.NewUser();
        var other = db.NewUser();
        foreach (var (owner, device) in new[] { (user, "a"), (user, "b"), (other, "a"), (other, "b") })
        {
            using var client = db.Device(owner, device);
            await client.PullPageAsync(owner, null);
        }

        using var asOther = db.Device(other, "a");
        var othersCursor = (await asOther.GetJsonAsync($"/v1/users/{other}/devices?pageSize=1", 200)).GetProperty("nextCursor").GetString()!;
        using var asUser = db.Device(user, "a");
        await asUser.PushAsync(user, Upsert("h1", "t", DateTimeOffset.UtcNow), Upsert("h2", "t", DateTimeOffset.UtcNow));
        var highlightCursor = (await asUser.GetJsonAsync($"/v1/users/{user}/highlights?pageSize=1", 200)).GetProperty("nextCursor").GetString()!;

        foreach (var cursor in new[] { othersCursor, highlightCursor })
        {
            var problem = await asUser.GetJsonAsync($"/v1/users/{user}/devices?cursor={Uri.EscapeDataString(cursor)}", 400);
            Assert.True(problem.GetProperty("errors").TryGetProperty("cursor", out _));
        }
    }

    // U+0000 never gets this far: the server refuses %00 in a path with a bare 400 before any endpoint runs.
    [Theory]
    [InlineData("a%0Ab")]
    [InlineData("%7F")]
    [InlineData("kobo%C2%85")]
    public async Task RevokingADeviceIdWithAControlCharacterIs400NamingTheDeviceId(string escapedDeviceId)
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        using var response = await device.DeleteAsync(new Uri($"/v1/users/{user}/devices/{escapedDeviceId}", UriKind.Relative), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token));
        Assert.True(problem.RootElement.GetProperty("errors").TryGetProperty("deviceId", out _), problem.RootElement.GetRawText());
        var list = await device.GetJsonAsync($"/v1/users/{user}/devices", 200);
        Assert.Equal(0, list.GetProperty("devices").GetArrayLength());
    }

    [Fact]
    public async Task AnotherUsersDevicesCannotBeListedOrRevoked()
    {
        var user = db.NewUser();
        var other = db.NewUser();
        using var device = db.Device(user);

        await device.GetJsonAsync($"/v1/users/{other}/devices", 403);
        Assert.Equal(HttpStatusCode.Forbidden, await RevokeAsync(device, other, "any"));
    }

    [Fact]
    public async Task AnUnknownUserIs404()
    {
        using var device = db.Device(987_654);

        await device.GetJsonAsync("/v1/users/987654/devices", 404);
        Assert.Equal(HttpStatusCode.NotFound, await RevokeAsync(device, 987_654, "any"));
    }
}
