using System.Net;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.KoreaderProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoreaderProtocol;

/// <summary>KOReader logins made, listed and revoked through the device API, as Kobo links are.</summary>
public sealed class KoreaderLoginTests(KoreaderServiceDatabase db) : IClassFixture<KoreaderServiceDatabase>
{
    private static Uri Logins(long user, string? username = null) =>
        new($"/v1/users/{user}/koreader-logins" + (username is null ? string.Empty : "/" + username), UriKind.Relative);

    [Fact]
    public async Task TheUsersDevicesListTheirLoginsWithoutAnyKey()
    {
        var user = db.NewUser();
        var first = await db.LoginAsync(user, "phone");
        var second = await db.LoginAsync(user, "tablet");
        using var phone = db.Device(user);

        var text = await phone.GetStringAsync(Logins(user), TestTimeout.Token);
        var logins = JsonDocument.Parse(text).RootElement.GetProperty("logins").EnumerateArray().ToList();

        Assert.Equal([second.Username, first.Username], logins.Select(l => l.GetProperty("username").GetString()));
        Assert.Equal(["tablet", "phone"], logins.Select(l => l.GetProperty("deviceId").GetString()));
        Assert.DoesNotContain(first.Password, text, StringComparison.Ordinal);
        Assert.DoesNotContain("pbkdf2", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnotherUsersDeviceCannotMakeOrListTheirLogins()
    {
        var user = db.NewUser();
        using var stranger = db.Device(db.NewUser());

        using var made = await stranger.PostAsync(Logins(user), null, TestTimeout.Token);
        using var listed = await stranger.GetAsync(Logins(user), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.Forbidden, made.StatusCode);
        Assert.Equal(HttpStatusCode.Forbidden, listed.StatusCode);
    }

    [Fact]
    public async Task ARevokedLoginIsRefusedAtOnce()
    {
        var user = db.NewUser();
        await db.OwnAsync(user, 1, 2);
        using var koreader = await db.KoreaderAsync(user);
        Assert.Equal(HttpStatusCode.OK, (await koreader.AuthorizeAsync()).Status);
        using var phone = db.Device(user);

        using var revoked = await phone.DeleteAsync(Logins(user, koreader.Username), TestTimeout.Token);
        using var unknown = await phone.DeleteAsync(Logins(user, "u1-nosuchlogin"), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.NoContent, revoked.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, unknown.StatusCode);
        Assert.Equal(HttpStatusCode.Unauthorized, (await koreader.AuthorizeAsync()).Status);
        Assert.Equal(HttpStatusCode.Unauthorized, (await koreader.PushAsync(KoreaderServiceDatabase.Content(1), "p", 0.5)).Status);
        Assert.NotNull(await db.ScalarAsync<DateTime?>("SELECT revoked_at FROM koreader_credentials WHERE username = $1", koreader.Username));
    }

    [Fact]
    public async Task RevokingTheDeviceThatMadeALoginRevokesTheLogin()
    {
        var user = db.NewUser();
        using var koreader = await db.KoreaderAsync(user);
        using var tablet = db.Device(user, "tablet");
        Assert.Equal(HttpStatusCode.OK, (await koreader.AuthorizeAsync()).Status);

        using var revoked = await tablet.DeleteAsync(new Uri($"/v1/users/{user}/devices/phone", UriKind.Relative), TestTimeout.Token);

        Assert.True(revoked.IsSuccessStatusCode, $"{(int)revoked.StatusCode}");
        Assert.Equal(HttpStatusCode.Unauthorized, (await koreader.AuthorizeAsync()).Status);
        Assert.NotNull(await db.ScalarAsync<DateTime?>("SELECT revoked_at FROM koreader_credentials WHERE username = $1", koreader.Username));
    }

    // Refused logins count against the client address as refused Kobo secrets do (Kobo:RefusedSecretsPerAddress*).
    [Fact]
    public async Task AnAddressPresentingWrongKeysIsToldToSlowDown()
    {
        var user = db.NewUser();
        await using var service = db.ServiceWith(new() { ["Kobo:RefusedSecretsPerAddressBurst"] = "3", ["Kobo:RefusedSecretsPerAddressPerMinute"] = "1" });
        var (username, _, _) = await db.LoginAsync(user);
        using var koreader = new KoreaderDevice(service.CreateClient(), KoreaderServiceDatabase.Prefix, username, "0123456789abcdef0123456789abcdef", "K", "k");

        var statuses = new List<HttpStatusCode>();
        for (var i = 0; i < 4; i++)
        {
            statuses.Add((await koreader.AuthorizeAsync()).Status);
        }

        Assert.Equal([HttpStatusCode.Unauthorized, HttpStatusCode.Unauthorized, HttpStatusCode.Unauthorized, HttpStatusCode.TooManyRequests], statuses);
    }
}
