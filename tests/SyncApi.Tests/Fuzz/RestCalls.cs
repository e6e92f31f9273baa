using System.Globalization;
using System.Text;
using CsCheck;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>One generated REST request.</summary>
internal sealed record RestCall(
    string Operation, HttpMethod Method, string Target, FuzzAuth Auth, KeyValuePair<string, string>[] Headers, byte[]? Body, string? ContentType,
    string? RevokedDevice = null)
{
    public override string ToString()
    {
        var text = new StringBuilder().Append(CultureInfo.InvariantCulture, $"{Operation}: {Method} {OddText.Show(Target)}; {Auth}");
        foreach (var (name, value) in Headers)
        {
            text.Append(CultureInfo.InvariantCulture, $"; {name}: {OddText.Show(value)}");
        }

        if (ContentType is not null)
        {
            text.Append(CultureInfo.InvariantCulture, $"; Content-Type: {ContentType}");
        }

        if (Body is not null)
        {
            text.Append("; body: ").Append(OddText.Show(Encoding.UTF8.GetString(Body)));
        }

        return text.ToString();
    }
}

/// <summary>
/// Requests to every REST endpoint of the device API: ids in the path (the fuzzed user mostly, the
/// bystander, odd text percent-encoded byte by byte), query values, cursors and sync tokens (real ones,
/// mutated ones, made-up ones), extra headers, a method the endpoint does not take, and a token from
/// <see cref="FuzzTokens"/>.
/// </summary>
internal static class RestCalls
{
    private static readonly Gen<byte[]> Bytes = Gen.Byte.Array[1, 12];

    public static Gen<string> UserSegment { get; } = Gen.Frequency(
        (20, Gen.Const(FuzzedService.User.ToString(CultureInfo.InvariantCulture))),
        (2, Gen.OneOf(FuzzedService.Bystander.ToString(CultureInfo.InvariantCulture), "3", "999999999999999999")),
        (3, OddText.Any.Select(OddText.Percent)),
        (1, Bytes.Select(OddText.Percent)));

    private static Gen<string> BookSegment { get; } = Gen.Frequency(
        (10, Gen.Int[1, 21].Select(b => b.ToString(CultureInfo.InvariantCulture))),
        (3, OddText.Any.Select(OddText.Percent)),
        (1, Bytes.Select(OddText.Percent)));

    private static Gen<string?> QueryValue(Gen<string> usual) => Gen.Frequency(
        (6, Gen.Const((string?)null)),
        (6, usual.Select(v => (string?)OddText.Percent(v))),
        (3, OddText.Any.Select(v => (string?)OddText.Percent(v))),
        (1, Bytes.Select(b => (string?)OddText.Percent(b))));

    private static Gen<string> PageSize { get; } = Gen.Frequency(
        (6, Gen.Int[1, 100].Select(i => i.ToString(CultureInfo.InvariantCulture))),
        (2, Gen.OneOf("0", "-1", "101", "1000", "1001", "2147483647", "2147483648", "1.5", "1e2", " 5", "5 ", "+5", "0x10", "٥")));

    /// <summary>Real values the service issued, mutated ones, and the other kind of opaque value in their place.</summary>
    public static Gen<string> Opaque(string[] real, string[] other) => Gen.Frequency(
        (4, Gen.OneOf(real)),
        (4, Gen.Select(Gen.OneOf(real), Gen.Int[0, 1000], OddText.AnyChar, Mutate)),
        (1, Gen.OneOf(other)),
        (1, Gen.OneOf("a.b", ".", "..", "a.", ".b", "AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAA", "x", new string('A', 600) + ".AAAA")));

    private static Gen<KeyValuePair<string, string>[]> Headers { get; } = Gen.Frequency(
        (10, Gen.Const<KeyValuePair<string, string>[]>(Array.Empty<KeyValuePair<string, string>>())),
        (1, Gen.OneOf(
            new KeyValuePair<string, string>("Accept", "application/xml"),
            new KeyValuePair<string, string>("Accept", "*/*;q=0"),
            new KeyValuePair<string, string>("Accept-Encoding", "gzip, br, zstd, x-unknown"),
            new KeyValuePair<string, string>("Accept-Language", "zz-ZZ;q=2"),
            new KeyValuePair<string, string>("X-Forwarded-For", "::1, 999.1.1.1, not-an-ip"),
            new KeyValuePair<string, string>("X-Forwarded-Proto", "gopher"),
            new KeyValuePair<string, string>("X-HTTP-Method-Override", "DELETE"),
            new KeyValuePair<string, string>("If-None-Match", "*"),
            new KeyValuePair<string, string>("Range", "bytes=0-0,5-2"),
            new KeyValuePair<string, string>("Cookie", "a=" + new string('c', 8_000)),
            new KeyValuePair<string, string>("X-Long", new string('h', 16_000)),
            new KeyValuePair<string, string>("traceparent", "00-zzzz-zzzz-01"),
            new KeyValuePair<string, string>("baggage", string.Join(",", Enumerable.Range(0, 500).Select(i => $"k{i}=v")))).Array[1, 3]));

    /// <summary>The reads: a user, a user's highlights, a book's highlights, a user's devices.</summary>
    public static Gen<RestCall> Reads(FuzzWorld world, Gen<FuzzAuth> auth)
    {
        var cursor = QueryValue(Opaque(world.Cursors, [.. world.BookCursors, .. world.SyncTokens]));
        var bookCursor = QueryValue(Opaque(world.BookCursors, [.. world.Cursors, .. world.SyncTokens]));
        var size = QueryValue(PageSize);
        return Gen.Frequency(
            (2, Gen.Select(UserSegment, auth, Headers, (u, a, h) => Get("GetUser", $"/v1/users/{u}", a, h))),
            (3, Gen.Select(UserSegment, size, cursor, auth, Headers, (u, s, c, a, h) =>
                Get("ListUserHighlights", $"/v1/users/{u}/highlights" + Query(("pageSize", s), ("cursor", c)), a, h))),
            (3, Gen.Select(UserSegment, BookSegment, size, bookCursor, auth, Headers, (u, b, s, c, a, h) =>
                Get("ListBookHighlights", $"/v1/users/{u}/books/{b}/highlights" + Query(("pageSize", s), ("cursor", c)), a, h))),
            (1, Gen.Select(UserSegment, auth, Headers, (u, a, h) => Get("ListDevices", $"/v1/users/{u}/devices", a, h))),
            (1, Gen.Select(UserSegment, Gen.OneOf(HttpMethod.Put, HttpMethod.Patch, HttpMethod.Head, HttpMethod.Options, new HttpMethod("PROPFIND")), auth,
                (u, m, a) => new RestCall("OtherMethod", m, $"/v1/users/{u}/highlights", a, [], null, null))));
    }

    /// <summary>Device sync: the delta pull with its sync token, revoking a device, and listing and revoking Kobo links.</summary>
    public static Gen<RestCall> Sync(FuzzWorld world, Gen<FuzzAuth> auth)
    {
        var since = QueryValue(Opaque(world.SyncTokens, [.. world.Cursors, .. world.BookCursors]));
        var size = QueryValue(Gen.Frequency((3, PageSize), (1, Gen.OneOf("1000", "1001", "999"))));
        var device = Gen.Frequency((3, Gen.Int[0, 5].Select(i => $"old-device-{i}")), (4, OddText.Any), (1, Gen.Const("\0")));
        return Gen.Frequency(
            (6, Gen.Select(UserSegment, since, size, auth, Headers, (u, s, p, a, h) =>
                Get("PullChanges", $"/v1/users/{u}/changes" + Query(("since", s), ("pageSize", p)), a, h))),
            (3, Gen.Select(UserSegment, device, auth, (u, d, a) =>
                new RestCall("RevokeDevice", HttpMethod.Delete, $"/v1/users/{u}/devices/{OddText.Percent(d)}", a, [], null, null, AsRouted(d)))),
            (1, Gen.Select(UserSegment, auth, Headers, (u, a, h) => Get("ListKoboLinks", $"/v1/users/{u}/kobo-links", a, h))),
            (1, Gen.Select(UserSegment, GrpcCalls.KoboLinkId, auth, (u, id, a) =>
                new RestCall("RevokeKoboLink", HttpMethod.Delete, $"/v1/users/{u}/kobo-links/{OddText.Percent(id)}", a, [], null, null))),
            (1, Gen.Select(UserSegment, Gen.OneOf(HttpMethod.Put, HttpMethod.Patch, new HttpMethod("PROPFIND")), auth,
                (u, m, a) => new RestCall("OtherMethod", m, $"/v1/users/{u}/kobo-links", a, [], null, null))));
    }

    /// <summary>The push, with the bodies of <see cref="PushBodies"/> and, now and then, another content type.</summary>
    public static Gen<RestCall> Pushes(Gen<FuzzAuth> auth)
    {
        var contentType = Gen.Frequency(
            (20, Gen.Const<string?>("application/json")),
            (1, Gen.OneOf<string?>(null, "text/plain", "application/json; charset=utf-16", "application/json; charset=x-unknown", "application/problem+json",
                "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json, text/plain", "application/*")));
        return Gen.Select(UserSegment, PushBodies.Any, contentType, auth, (u, body, type, a) =>
            new RestCall("PushChanges", HttpMethod.Post, $"/v1/users/{u}/changes", a, [], body, type));
    }

    /// <summary>A book's reading state: reads, and puts with the bodies of <see cref="ReadingStateBodies"/>, now and then of another content type.</summary>
    public static Gen<RestCall> ReadingStates(Gen<FuzzAuth> auth)
    {
        var contentType = Gen.Frequency(
            (20, Gen.Const<string?>("application/json")),
            (1, Gen.OneOf<string?>(null, "text/plain", "application/json; charset=utf-16", "application/x-www-form-urlencoded")));
        return Gen.Frequency(
            (1, Gen.Select(UserSegment, BookSegment, auth, Headers, (u, b, a, h) => Get("GetReadingState", $"/v1/users/{u}/books/{b}/reading-state", a, h))),
            (3, Gen.Select(UserSegment, BookSegment, ReadingStateBodies.Any, contentType, auth, (u, b, body, type, a) =>
                new RestCall("PutReadingState", HttpMethod.Put, $"/v1/users/{u}/books/{b}/reading-state", a, [], body, type))),
            (1, Gen.Select(UserSegment, BookSegment, Gen.OneOf(HttpMethod.Post, HttpMethod.Patch, HttpMethod.Delete), auth, (u, b, m, a) =>
                new RestCall("OtherMethod", m, $"/v1/users/{u}/books/{b}/reading-state", a, [], null, null))));
    }

    /// <summary>Collections: the list (odd page sizes and cursors), one collection (odd ids), and pushes with the bodies of <see cref="CollectionBodies"/>.</summary>
    public static Gen<RestCall> Collections(Gen<FuzzAuth> auth)
    {
        var cursor = QueryValue(Gen.Frequency((3, Gen.OneOf(CollectionBodies.Ids)), (1, OddText.Any)));
        var size = QueryValue(PageSize);
        var contentType = Gen.Frequency(
            (20, Gen.Const<string?>("application/json")),
            (1, Gen.OneOf<string?>(null, "text/plain", "application/json; charset=utf-16", "application/x-www-form-urlencoded")));
        return Gen.Frequency(
            (2, Gen.Select(UserSegment, size, cursor, auth, Headers, (u, s, c, a, h) =>
                Get("ListCollections", $"/v1/users/{u}/collections" + Query(("pageSize", s), ("cursor", c)), a, h))),
            (2, Gen.Select(UserSegment, CollectionBodies.Id, auth, Headers, (u, id, a, h) =>
                Get("GetCollection", $"/v1/users/{u}/collections/{OddText.Percent(id)}", a, h))),
            (5, Gen.Select(UserSegment, CollectionBodies.Any, contentType, auth, (u, body, type, a) =>
                new RestCall("PushCollectionChanges", HttpMethod.Post, $"/v1/users/{u}/collections/changes", a, [], body, type))),
            (1, Gen.Select(UserSegment, Gen.OneOf(HttpMethod.Put, HttpMethod.Patch, HttpMethod.Delete), auth, (u, m, a) =>
                new RestCall("OtherMethod", m, $"/v1/users/{u}/collections/changes", a, [], null, null))));
    }

    /// <summary>The device id as routing hands it over: UTF-8 decoded, but an encoded '/' left as %2F.</summary>
    private static string AsRouted(string device) =>
        Encoding.UTF8.GetString(Encoding.UTF8.GetBytes(device)).Replace("/", "%2F", StringComparison.Ordinal);

    private static RestCall Get(string operation, string target, FuzzAuth auth, KeyValuePair<string, string>[] headers) =>
        new(operation, HttpMethod.Get, target, auth, headers, null, null);

    private static string Query(params (string Name, string? Value)[] values)
    {
        var given = values.Where(v => v.Value is not null).Select(v => $"{v.Name}={v.Value}").ToList();
        return given.Count == 0 ? string.Empty : "?" + string.Join('&', given);
    }

    private static string Mutate(string value, int at, char c)
    {
        var i = at % value.Length;
        return (at % 5) switch
        {
            0 => value.Remove(i, 1).Insert(i, c.ToString()),
            1 => value[..i],
            2 => value + c,
            3 => value.Remove(i, 1),
            _ => value.Replace('.', c),
        };
    }
}
