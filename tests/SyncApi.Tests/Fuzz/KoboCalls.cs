using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using CsCheck;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Requests to the Kobo device protocol under <c>/kobo/{secret}/</c>: the fuzzed user's real link secret
/// mostly (so inputs reach the handlers), then mutated, made-up and odd secrets that must be refused;
/// initialization, device auth with generated bodies, library sync with real, mutated, foreign and odd
/// <c>x-kobo-synctoken</c> values, book metadata, archiving and reading states (generated bodies) with
/// real, foreign and odd UUIDs, covers (real, foreign and odd image ids, sizes and flags), the content
/// access call, tags (<see cref="CollectionBodies.KoboTag"/> bodies, shared and odd tag ids), and
/// store or unknown paths with the device's methods and others (TRACE, OPTIONS, HEAD, PROPFIND, made-up ones).
/// </summary>
internal static class KoboCalls
{
    public const string Device = "fuzz-kobo";

    private static readonly Gen<char> HeaderChar = Gen.Char['!', '~'];

    public static Gen<RestCall> Any(KoboWorld world)
    {
        var secret = Gen.Frequency(
            (20, Gen.Const(new FuzzAuth(null, [Device], "real secret"))),
            (2, Gen.Select(Gen.Int[0, 1000], HeaderChar, (at, c) => Mutated(world.Secret, at, c))),
            (1, Gen.Const(new FuzzAuth(null, [], "made-up secret", MustBeRefused: true) { Secret = new string('A', 43) })),
            (2, OddText.Any.Select(t => new FuzzAuth(null, [], "odd secret", MustBeRefused: true) { Secret = OddText.Percent(t) })));
        var token = Gen.Frequency(
            (3, Gen.Const((string?)null)),
            (4, Gen.OneOf(world.SyncTokens).Select(t => (string?)t)),
            (3, Gen.Select(Gen.OneOf(world.SyncTokens), Gen.Int[0, 1000], HeaderChar, (t, at, c) => (string?)Mutate(t, at, c))),
            (2, Gen.OneOf<string?>("a.b", "eyJ0eXAiOjF9.eyJJbnRlcm5hbCI6MX0", "kobosync1:", "kobosync1:a.b", "kobosync1:" + new string('A', 600), "x")));
        var uuid = Gen.Frequency(
            (6, Gen.Int[1, 25].Select(b => BookUuid.Format(new BookNo(b)))),
            (2, Gen.Const(Guid.Empty.ToString()).Select(_ => Guid.NewGuid().ToString())),
            (2, OddText.Any.Select(OddText.Percent)));
        var body = Gen.Frequency(
            (4, Gen.Const<byte[]?>(Encoding.UTF8.GetBytes("""{"UserKey":"k","DeviceId":"d","ClientKey":"c"}"""))),
            (3, PushBodies.Any.Select(b => (byte[]?)b)),
            (2, OddText.Any.Select(t => (byte[]?)Encoding.UTF8.GetBytes(OddText.Json(t)))),
            (1, Gen.Const((byte[]?)null)));
        var storePath = Gen.Frequency(
            (4, Gen.OneOf("/v1/user/profile", "/v1/user/wishlist?PageSize=30&PageIndex=0", "/v1/user/loyalty/benefits", "/v1/analytics/gettests",
                "/v1/analytics/event", "/v1/deals", "/v1/products/featured/", "/v1/library/tags", "/v1/library/sync/extra", "/")),
            (2, OddText.Any.Select(t => "/v1/" + OddText.Percent(t))));
        var method = Gen.Frequency(
            (10, Gen.OneOf(HttpMethod.Get, HttpMethod.Post, HttpMethod.Put, HttpMethod.Delete, HttpMethod.Patch)),
            (1, Gen.OneOf(HttpMethod.Trace, HttpMethod.Options, HttpMethod.Head, new HttpMethod("PROPFIND"), new HttpMethod("BREW"))));
        var stateBody = Gen.Frequency(
            (4, Gen.Select(Gen.Double[-10, 120], Gen.Int[-5, 100_000], Gen.OneOf("ReadyToRead", "Reading", "Finished", "Other", ""),
                Gen.OneOf("2026-11-20T10:00:00Z", "2026-11-20T10:00:00.0000000Z", "2126-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "yesterday", ""),
                (p, m, s, t) => (byte[]?)Encoding.UTF8.GetBytes(
                    $"{{\"ReadingStates\":[{{\"CurrentBookmark\":{{\"ProgressPercent\":{p.ToString(System.Globalization.CultureInfo.InvariantCulture)},\"Location\":{{\"Value\":\"kobo.1.2\",\"Type\":\"KoboSpan\"}},\"LastModified\":\"{t}\"}},"
                    + $"\"Statistics\":{{\"SpentReadingMinutes\":{m},\"LastModified\":\"{t}\"}},\"StatusInfo\":{{\"Status\":\"{s}\",\"LastModified\":\"{t}\"}}}}]}}"))),
            (2, PushBodies.Any.Select(b => (byte[]?)b)),
            (1, OddText.Any.Select(t => (byte[]?)Encoding.UTF8.GetBytes(OddText.Json(t)))));
        var coverNumber = Gen.Frequency(
            (6, Gen.Int[0, 2000].Select(n => n.ToString(System.Globalization.CultureInfo.InvariantCulture))),
            (2, Gen.OneOf("-1", "1.5", "5e2", "99999999999", "0x10", " 1", "abc")),
            (1, OddText.Any.Select(OddText.Percent)));
        var greyscale = Gen.Frequency(
            (6, Gen.OneOf("false", "true", "False", "TRUE")),
            (1, OddText.Any.Select(OddText.Percent)));
        var displayProfile = Gen.Frequency(
            (4, Gen.OneOf("Android", "Desktop", "")),
            (1, OddText.Any.Select(OddText.Percent)));
        var tag = Gen.Frequency((6, Gen.OneOf(CollectionBodies.Ids)), (2, CollectionBodies.Id.Select(OddText.Percent)));
        return Gen.Frequency(
            (2, Gen.Select(secret, uuid, coverNumber, coverNumber, greyscale, (s, u, w, h, g) =>
                Call("KoboCover", HttpMethod.Get, s, world, $"/{u}/{w}/{h}/{g}/image.jpg"))),
            (1, Gen.Select(secret, uuid, Gen.Select(coverNumber, coverNumber, coverNumber, (w, h, q) => $"{w}/{h}/{q}"), greyscale, (s, u, sizes, g) =>
                Call("KoboCover", HttpMethod.Get, s, world, $"/{u}/{sizes}/{g}/image.jpg"))),
            (2, Gen.Select(secret, uuid, displayProfile, (s, u, p) =>
                Call("KoboContentAccess", HttpMethod.Get, s, world, $"/v1/products/books/{u}/access?DisplayProfile={p}"))),
            (2, Gen.Select(secret, CollectionBodies.KoboTag, (s, b) => Call("KoboCreateTag", HttpMethod.Post, s, world, "/v1/library/tags", b))),
            (1, Gen.Select(secret, tag, CollectionBodies.KoboTag, (s, t, b) => Call("KoboRenameTag", HttpMethod.Put, s, world, $"/v1/library/tags/{t}", b))),
            (1, Gen.Select(secret, tag, (s, t) => Call("KoboDeleteTag", HttpMethod.Delete, s, world, $"/v1/library/tags/{t}"))),
            (1, Gen.Select(secret, tag, CollectionBodies.KoboTag, (s, t, b) => Call("KoboAddTagItems", HttpMethod.Post, s, world, $"/v1/library/tags/{t}/items", b))),
            (1, Gen.Select(secret, tag, CollectionBodies.KoboTag, (s, t, b) => Call("KoboRemoveTagItems", HttpMethod.Post, s, world, $"/v1/library/tags/{t}/items/delete", b))),
            (2, Gen.Select(secret, s => Call("KoboInitialization", HttpMethod.Get, s, world, "/v1/initialization"))),
            (2, Gen.Select(secret, body, (s, b) => Call("KoboAuthDevice", HttpMethod.Post, s, world, "/v1/auth/device", b))),
            (5, Gen.Select(secret, token, (s, t) => Call("KoboLibrarySync", HttpMethod.Get, s, world, "/v1/library/sync", token: t))),
            (2, Gen.Select(secret, uuid, (s, u) => Call("KoboBookMetadata", HttpMethod.Get, s, world, $"/v1/library/{u}/metadata"))),
            (1, Gen.Select(secret, uuid, (s, u) => Call("KoboArchiveBook", HttpMethod.Delete, s, world, $"/v1/library/{u}"))),
            (2, Gen.Select(secret, uuid, (s, u) => Call("KoboGetReadingState", HttpMethod.Get, s, world, $"/v1/library/{u}/state"))),
            (3, Gen.Select(secret, uuid, stateBody, (s, u, b) => Call("KoboPutReadingState", HttpMethod.Put, s, world, $"/v1/library/{u}/state", b))),
            (2, Gen.Select(secret, method, storePath, body, (s, m, p, b) =>
                Call("KoboStoreCall", m, s, world, p, m == HttpMethod.Get || m == HttpMethod.Delete || m == HttpMethod.Trace || m == HttpMethod.Head ? null : b))));
    }

    private static RestCall Call(string operation, HttpMethod method, FuzzAuth auth, KoboWorld world, string path, byte[]? body = null, string? token = null) =>
        new(operation, method, $"/kobo/{auth.Secret ?? world.Secret}{path}", auth,
            token is null ? [] : [new KeyValuePair<string, string>("x-kobo-synctoken", token)],
            body, body is null ? null : "application/json");

    private static FuzzAuth Mutated(string secret, int at, char c)
    {
        var mutated = Mutate(secret, at, c);
        return mutated == secret
            ? new FuzzAuth(null, [Device], "real secret")
            : new FuzzAuth(null, [], "mutated secret", MustBeRefused: true) { Secret = Uri.EscapeDataString(mutated) };
    }

    private static string Mutate(string value, int at, char c)
    {
        var i = at % value.Length;
        return (at % 4) switch
        {
            0 => value.Remove(i, 1).Insert(i, c.ToString()),
            1 => value[..i],
            2 => value + c,
            _ => value.Remove(i, 1),
        };
    }
}

/// <summary>
/// The fuzzed user's Kobo link, the library sync token the service really issued to it, and the user's
/// native change feed tokens under the library prefix (tokens of the other kind, which start a full sync).
/// </summary>
internal sealed record KoboWorld(string Secret, string[] SyncTokens)
{
    public static async Task<KoboWorld> CreateAsync(SyncGrpcTestHost host, string[] nativeSyncTokens)
    {
        using var phone = new HttpClient { BaseAddress = host.RestAddress };
        phone.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(FuzzedService.User, KoboCalls.Device));
        using var linked = await phone.PostAsync(new Uri($"/v1/users/{FuzzedService.User}/kobo-links", UriKind.Relative), null, TestTimeout.Token);
        var endpoint = JsonDocument.Parse(await linked.Content.ReadAsStringAsync(TestTimeout.Token)).RootElement.GetProperty("apiEndpoint").GetString()!;
        var secret = endpoint[(endpoint.LastIndexOf('/') + 1)..];
        using var kobo = new HttpClient { BaseAddress = host.RestAddress };
        using var sync = await kobo.GetAsync(new Uri($"/kobo/{secret}/v1/library/sync", UriKind.Relative), TestTimeout.Token);
        var token = sync.Headers.GetValues("x-kobo-synctoken").Single();
        return new KoboWorld(secret, [token, .. nativeSyncTokens.Select(t => "kobosync1:" + t)]);
    }
}
