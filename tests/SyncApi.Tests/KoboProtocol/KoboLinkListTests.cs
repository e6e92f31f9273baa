using System.Net;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// GET /v1/users/{userNo}/kobo-links and DELETE /v1/users/{userNo}/kobo-links/{linkId}, and the same over
/// gRPC (ListKoboLinks, RevokeKoboLink), on a real PostgreSQL.
/// </summary>
public sealed class KoboLinkListTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private const string Service = "kobo.sync.v1.SyncService";

    private static async Task<HttpStatusCode> InitializeAsync(HttpClient client, string root)
    {
        using var response = await client.GetAsync(new Uri(root + "/v1/initialization", UriKind.Relative), TestTimeout.Token);
        return response.StatusCode;
    }

    private static async Task<(JsonElement[] Links, string Body)> ListAsync(HttpClient device, long user)
    {
        using var response = await device.GetAsync(new Uri($"/v1/users/{user}/kobo-links", UriKind.Relative), TestTimeout.Token);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.StatusCode == HttpStatusCode.OK, $"list: {(int)response.StatusCode} {body}");
        return (JsonDocument.Parse(body).RootElement.GetProperty("links").EnumerateArray().Select(e => e.Clone()).ToArray(), body);
    }

    private static async Task<HttpResponseMessage> RevokeAsync(HttpClient device, long user, string linkId) =>
        await device.DeleteAsync(new Uri($"/v1/users/{user}/kobo-links/{linkId}", UriKind.Relative), TestTimeout.Token);

    private static string HashHex(string endpoint) =>
        Convert.ToHexStringLower(SHA256.HashData(Encoding.ASCII.GetBytes(KoboLinks.SecretOf(endpoint))));

    [Fact]
    public async Task TheListShowsEachLinkNewestFirstByIdDeviceAndTimeButNeverItsSecretOrHash()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        using var laptop = db.Device(user, "laptop");
        var endpoints = new List<string> { await phone.LinkAsync(user), await laptop.LinkAsync(user), await phone.LinkAsync(user) };

        var (links, body) = await ListAsync(laptop, user);

        Assert.Equal(["phone", "laptop", "phone"], links.Select(l => l.GetProperty("deviceId").GetString()));
        Assert.All(links, l => Assert.Matches("^[0-9a-f]{16}$", l.GetProperty("id").GetString()));
        Assert.All(links, l => Assert.False(l.TryGetProperty("revokedAt", out _)));
        Assert.Equal(3, links.Select(l => l.GetProperty("id").GetString()).Distinct().Count());
        var created = links.Select(l => l.GetProperty("createdAt").GetDateTimeOffset()).ToArray();
        Assert.Equal(created.OrderDescending(), created);
        foreach (var endpoint in endpoints)
        {
            Assert.DoesNotContain(KoboLinks.SecretOf(endpoint), body, StringComparison.Ordinal);
            Assert.DoesNotContain(HashHex(endpoint)[..8], body, StringComparison.OrdinalIgnoreCase);
        }
    }

    [Fact]
    public async Task RevokingALinkStopsItAtOnceEvenWhenCachedAndTheListSaysWhen()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        var kept = KoboLinks.RootOf(await phone.LinkAsync(user));
        var revoked = KoboLinks.RootOf(await phone.LinkAsync(user));
        using var kobo = db.Factory.CreateClient();
        Assert.Equal(HttpStatusCode.OK, await InitializeAsync(kobo, revoked)); // cached now
        var id = (await ListAsync(phone, user)).Links[0].GetProperty("id").GetString()!;

        using (var response = await RevokeAsync(phone, user, id))
        {
            Assert.Equal(HttpStatusCode.NoContent, response.StatusCode);
        }

        using (var again = await RevokeAsync(phone, user, id))
        {
            Assert.Equal(HttpStatusCode.NoContent, again.StatusCode);
        }

        Assert.Equal(HttpStatusCode.Unauthorized, await InitializeAsync(kobo, revoked));
        Assert.Equal(HttpStatusCode.OK, await InitializeAsync(kobo, kept));
        var links = (await ListAsync(phone, user)).Links;
        Assert.True(links.Single(l => l.GetProperty("id").GetString() == id).TryGetProperty("revokedAt", out _));
        Assert.Single(links, l => !l.TryGetProperty("revokedAt", out _));
    }

    [Fact]
    public async Task AnUnknownOrMalformedLinkIdOrAnotherUsersLinksAreRefusedPrecisely()
    {
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        await phone.LinkAsync(user);

        using var unknown = await RevokeAsync(phone, user, "0123456789abcdef");
        using var malformed = await RevokeAsync(phone, user, "not-an-id");
        using var foreign = await RevokeAsync(phone, db.NewUser(), "0123456789abcdef");
        using var foreignList = await phone.GetAsync(new Uri($"/v1/users/{db.NewUser()}/kobo-links", UriKind.Relative), TestTimeout.Token);
        using var anonymous = await db.Factory.CreateClient().GetAsync(new Uri($"/v1/users/{user}/kobo-links", UriKind.Relative), TestTimeout.Token);

        Assert.Equal(
            [HttpStatusCode.NotFound, HttpStatusCode.BadRequest, HttpStatusCode.Forbidden, HttpStatusCode.Forbidden, HttpStatusCode.Unauthorized],
            new[] { unknown, malformed, foreign, foreignList, anonymous }.Select(r => r.StatusCode));
        Assert.All(new[] { unknown, malformed, foreign }, r => Assert.Equal("application/problem+json", r.Content.Headers.ContentType?.MediaType));
    }

    [Fact]
    public async Task OverGrpcTheListAndTheRevocationAreTheSame()
    {
        using var host = new SyncGrpcTestHost(db.ConnectionString);
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        var root = KoboLinks.RootOf(await phone.LinkAsync(user));
        KeyValuePair<string, string>[] asPhone = [new("authorization", $"Bearer {TestTokens.For(user, "phone")}")];

        var listed = await host.Client.UnaryAsync(
            Service, "ListKoboLinks", new ListKoboLinksRequest { UserNo = user }, ListKoboLinksResponse.Parser,
            metadata: asPhone, cancellationToken: TestTimeout.Token);
        var link = Assert.Single(listed.Links);
        Assert.Equal("phone", link.DeviceId);
        Assert.Null(link.RevokedAt);
        Assert.Equal((await ListAsync(phone, user)).Links[0].GetProperty("id").GetString(), link.Id);

        await host.Client.UnaryAsync(
            Service, "RevokeKoboLink", new RevokeKoboLinkRequest { UserNo = user, LinkId = link.Id }, RevokeKoboLinkResponse.Parser,
            metadata: asPhone, cancellationToken: TestTimeout.Token);
        var malformed = await Assert.ThrowsAsync<RpcException>(() => host.Client.UnaryAsync(
            Service, "RevokeKoboLink", new RevokeKoboLinkRequest { UserNo = user, LinkId = "x" }, RevokeKoboLinkResponse.Parser,
            metadata: asPhone, cancellationToken: TestTimeout.Token));
        var unknown = await Assert.ThrowsAsync<RpcException>(() => host.Client.UnaryAsync(
            Service, "RevokeKoboLink", new RevokeKoboLinkRequest { UserNo = user, LinkId = "0123456789abcdef" }, RevokeKoboLinkResponse.Parser,
            metadata: asPhone, cancellationToken: TestTimeout.Token));
        var relisted = await host.Client.UnaryAsync(
            Service, "ListKoboLinks", new ListKoboLinksRequest { UserNo = user }, ListKoboLinksResponse.Parser,
            metadata: asPhone, cancellationToken: TestTimeout.Token);

        Assert.Equal((StatusCode.InvalidArgument, StatusCode.NotFound), (malformed.StatusCode, unknown.StatusCode));
        Assert.NotNull(Assert.Single(relisted.Links).RevokedAt);
        Assert.Equal(HttpStatusCode.Unauthorized, await InitializeAsync(db.Factory.CreateClient(), root));
    }

    [Fact]
    public async Task TheOpenApiDocumentDescribesListingAndRevokingLinks()
    {
        var document = await db.Factory.CreateClient().GetJsonAsync("/openapi/v1.json", 200);
        var paths = document.GetProperty("paths");

        Assert.Equal("ListKoboLinks", paths.GetProperty("/v1/users/{userNo}/kobo-links").GetProperty("get").GetProperty("operationId").GetString());
        Assert.Equal("RevokeKoboLink", paths.GetProperty("/v1/users/{userNo}/kobo-links/{linkId}").GetProperty("delete").GetProperty("operationId").GetString());
    }
}
