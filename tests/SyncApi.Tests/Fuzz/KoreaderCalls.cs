using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using System.Security.Cryptography;
using System.Text;
using System.Text.Json;
using CsCheck;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Requests to KOReader's progress sync front under <c>/koreader</c>: the fuzzed user's real login mostly
/// (so inputs reach the handlers), then mutated, made-up and odd user names and keys that must be refused;
/// registration, authorization, progress PUTs with generated bodies (real digests of the user's books,
/// made-up and odd documents, percentages in and out of range, identifier lists well and badly formed,
/// odd JSON) and progress GETs with generated documents and <c>ids</c>, the health check, and other
/// methods and paths under the prefix.
/// </summary>
internal static class KoreaderCalls
{
    public const string Device = "fuzz-koreader";
    public const string Prefix = "/koreader";

    /// <summary>The KOReader digests the catalogue states for books 1 and 2 (which the fuzzed user owns), and their books.</summary>
    public static readonly Dictionary<string, string> Digests = new[] { "1", "2" }
        .SelectMany(book => new[] { "content", "structure", "filename" }.Select(kind => (Digest: Md5($"fuzz-{kind}-{book}"), Book: book)))
        .ToDictionary(d => d.Digest, d => d.Book, StringComparer.Ordinal);

    public static Gen<RestCall> Any(KoreaderWorld world)
    {
        var login = Gen.Frequency(
            (20, Gen.Const(new FuzzAuth(null, [Device], "real login"))),
            (2, Gen.Select(Gen.Int[0, 64], Gen.Char['!', '~'], (at, c) => Mutated(world, at, c))),
            (1, Gen.Const(new FuzzAuth(null, [], "made-up login", MustBeRefused: true) { Secret = "u1-madeup00\n" + new string('0', 32) })),
            (1, OddText.Any.Select(t => new FuzzAuth(null, [], "odd login", MustBeRefused: true) { Secret = world.Username + "\n" + OddText.Percent(t) })),
            (1, Gen.Const(new FuzzAuth(null, [], "no login", MustBeRefused: true) { Secret = "\n" })));
        var digest = Gen.Frequency(
            (6, Gen.OneOf(Digests.Keys.ToArray())),
            (3, Gen.Int[0, 50].Select(n => Md5("doc " + n))),
            (2, OddText.Any));
        var identifier = Gen.Select(Gen.OneOf("content", "structure", "filename", "metadata", "Content", "", "a:b"), digest, (t, v) => (Type: t, Value: v));
        var identifiers = Gen.Frequency(
            (4, Gen.Const(((string Type, string Value)[]?)null)),
            (4, identifier.Array[1, 4].Select(a => ((string Type, string Value)[]?)a)),
            (1, identifier.Array[9, 12].Select(a => ((string Type, string Value)[]?)a)));
        var percentage = Gen.Frequency(
            (6, Gen.Double[0, 1].Select(p => p.ToString("R", CultureInfo.InvariantCulture))),
            (2, Gen.OneOf("0", "1", "-0", "1.0000001", "-0.1", "1e308", "\"0.5\"", "\"abc\"", "null", "true", "[]", "NaN")));
        var progressBody = Gen.Select(digest, identifiers, percentage, Gen.Frequency((6, Gen.Const("/body/DocFragment[3]/body/p[1]")), (2, OddText.Any)), Gen.Frequency((6, Gen.Const("Kindle")), (1, OddText.Any)),
            (d, ids, p, progress, device) =>
            {
                var documentIds = ids is null ? null : ids.Prepend((Type: "content", Value: d)).ToArray();
                var json = new StringBuilder("{")
                    .Append(CultureInfo.InvariantCulture, $"\"document\":{OddText.Json(d)},\"progress\":{OddText.Json(progress)},\"percentage\":{p},")
                    .Append(CultureInfo.InvariantCulture, $"\"device\":{OddText.Json(device)},\"device_id\":\"fuzz-device\"");
                if (documentIds is not null)
                {
                    json.Append(",\"identifiers\":[").AppendJoin(',', documentIds.Select(i => $"{{\"type\":{OddText.Json(i.Type)},\"value\":{OddText.Json(i.Value)}}}")).Append(']');
                }

                return (byte[]?)Encoding.UTF8.GetBytes(json.Append('}').ToString());
            });
        var body = Gen.Frequency(
            (8, progressBody),
            (2, PushBodies.Any.Select(b => (byte[]?)b)),
            (1, OddText.Any.Select(t => (byte[]?)Encoding.UTF8.GetBytes(OddText.Json(t)))),
            (1, Gen.Const((byte[]?)null)));
        var ids = Gen.Frequency(
            (4, Gen.Const(string.Empty)),
            (4, identifier.Array[1, 4].Select(a => "?ids=" + Uri.EscapeDataString(string.Join(',', a.Select(i => i.Type + ":" + i.Value))))),
            (1, OddText.Any.Select(t => "?ids=" + OddText.Percent(t))));
        var method = Gen.Frequency(
            (10, Gen.OneOf(HttpMethod.Get, HttpMethod.Post, HttpMethod.Put, HttpMethod.Delete, HttpMethod.Patch)),
            (1, Gen.OneOf(HttpMethod.Trace, HttpMethod.Options, HttpMethod.Head, new HttpMethod("BREW"))));
        var path = Gen.Frequency(
            (4, Gen.OneOf("/users/create", "/users/auth", "/syncs/progress", "/syncs/progress/", "/healthcheck", "/users/me", "/users/password", "/")),
            (1, OddText.Any.Select(t => "/syncs/" + OddText.Percent(t))));
        return Gen.Frequency(
            (8, Gen.Select(login, body, (l, b) => Call("KoreaderPutProgress", HttpMethod.Put, l, world, "/syncs/progress", b))),
            (6, Gen.Select(login, digest, ids, (l, d, q) => Call("KoreaderGetProgress", HttpMethod.Get, l, world, "/syncs/progress/" + Uri.EscapeDataString(d) + q))),
            (2, Gen.Select(login, l => Call("KoreaderAuthorize", HttpMethod.Get, l, world, "/users/auth"))),
            (1, Gen.Select(login, body, (l, b) => Call("KoreaderRegister", HttpMethod.Post, l with { MustBeRefused = true }, world, "/users/create", b))),
            (1, Gen.Select(login, l => Call("KoreaderHealthcheck", HttpMethod.Get, l with { MustBeRefused = false }, world, "/healthcheck"))),
            (2, Gen.Select(login, method, path, body, (l, m, p, b) =>
                Call("KoreaderOther", m, l with { MustBeRefused = false }, world, p, m == HttpMethod.Get || m == HttpMethod.Delete || m == HttpMethod.Trace || m == HttpMethod.Head ? null : b))));
    }

    /// <summary>The books a 200 PUT may have written: those of every known digest the body names.</summary>
    public static void Record(RestCall call, FuzzLedger ledger)
    {
        var text = call.Body is null ? string.Empty : Encoding.UTF8.GetString(call.Body);
        foreach (var (digest, book) in Digests)
        {
            if (text.Contains(digest, StringComparison.Ordinal))
            {
                ledger.Wrote(FuzzLedger.ReadingState(book));
            }
        }
    }

    /// <summary>A refusal of the KOReader front in the reference server's shape: JSON with a numeric <c>code</c> and a <c>message</c>.</summary>
    public static bool IsReferenceError(MediaTypeHeaderValue? contentType, byte[] body)
    {
        if (contentType?.MediaType != "application/json")
        {
            return false;
        }

        try
        {
            using var error = JsonDocument.Parse(body);
            return error.RootElement.TryGetProperty("code", out var code) && code.ValueKind == JsonValueKind.Number
                && error.RootElement.TryGetProperty("message", out var message) && message.GetString() is { Length: > 0 };
        }
        catch (JsonException)
        {
            return false;
        }
    }

    public static string Md5(string text) => Convert.ToHexStringLower(MD5.HashData(Encoding.UTF8.GetBytes(text)));

    // The login travels in Secret as "username\nkey"; headers are built from it.
    private static RestCall Call(string operation, HttpMethod method, FuzzAuth auth, KoreaderWorld world, string path, byte[]? body = null)
    {
        var pair = (auth.Secret ?? world.Username + "\n" + world.Key).Split('\n', 2);
        KeyValuePair<string, string>[] headers =
        [
            new("Accept", "application/vnd.koreader.v1+json"),
            new("x-auth-user", pair[0]),
            new("x-auth-key", pair[1]),
        ];
        return new(operation, method, Prefix + path, auth, headers, body, body is null ? null : "application/json");
    }

    private static FuzzAuth Mutated(KoreaderWorld world, int at, char c)
    {
        var key = world.Key;
        var i = at % key.Length;
        var mutated = (at % 3) switch
        {
            0 => key.Remove(i, 1).Insert(i, c.ToString()),
            1 => key[..i],
            _ => key + c,
        };
        return mutated == key
            ? new FuzzAuth(null, [Device], "real login")
            : new FuzzAuth(null, [], "mutated key", MustBeRefused: true) { Secret = world.Username + "\n" + mutated };
    }
}

/// <summary>The fuzzed user's KOReader login (the catalogue's digests of books 1 and 2 stored first: <see cref="KoreaderCalls.Digests"/>).</summary>
internal sealed record KoreaderWorld(string Username, string Key)
{
    public static async Task<KoreaderWorld> CreateAsync(SyncGrpcTestHost host, NpgsqlDataSource dataSource)
    {
        await using (var command = dataSource.CreateCommand("""
            INSERT INTO book_file_digests (book_no, format, kind, digest)
            SELECT b, 'EPUB3', kind, md5('fuzz-' || kind || '-' || b) FROM generate_series(1, 2) b, unnest(ARRAY['content', 'structure', 'filename']) kind
            ON CONFLICT DO NOTHING
            """))
        {
            await command.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        using var phone = new HttpClient { BaseAddress = host.RestAddress };
        phone.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(FuzzedService.User, KoreaderCalls.Device));
        using var made = await phone.PostAsync(new Uri($"/v1/users/{FuzzedService.User}/koreader-logins", UriKind.Relative), null, TestTimeout.Token);
        var body = await made.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(made.StatusCode == HttpStatusCode.Created, $"making the fuzzed KOReader login: expected 201, got {(int)made.StatusCode}: {body}");
        var login = JsonDocument.Parse(body).RootElement;
        return new KoreaderWorld(login.GetProperty("username").GetString()!, KoreaderCalls.Md5(login.GetProperty("password").GetString()!));
    }
}
