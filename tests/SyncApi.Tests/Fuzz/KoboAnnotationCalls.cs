using System.Globalization;
using System.Text;
using System.Text.Json;
using CsCheck;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Requests to a Kobo device's reading-services endpoints under <c>/kobo/{secret}</c>: checkforchanges,
/// and a book's annotations GET and PATCH. Mostly the fuzzed user's link secret (so inputs reach the
/// handlers), else an unknown or malformed one; content ids of the user's books, of books the user does
/// not own, foreign UUIDs and odd text; annotations with odd text, types, colours, times and locations,
/// and bodies that are not the expected JSON.
/// </summary>
internal static class KoboAnnotationCalls
{
    private static readonly FuzzAuth Link = new(null, [], "kobo link");

    private static Gen<string> Root(string secret) => Gen.Frequency(
        (20, Gen.Const("/kobo/" + secret)),
        (1, Gen.OneOf("/kobo/" + new string('A', 43), "/kobo/x", "/kobo/" + secret + "x")),
        (1, OddText.Any.Select(t => "/kobo/" + OddText.Percent(t))));

    /// <summary>Books 1-5 are the fuzzed user's; 6-20 exist but are not; the rest name nothing.</summary>
    private static Gen<string> ContentId { get; } = Gen.Frequency(
        (12, Gen.Int[1, 5].Select(b => BookUuid.Format(new BookNo(b)))),
        (3, Gen.Int[6, 25].Select(b => BookUuid.Format(new BookNo(b)))),
        (1, Gen.Guid.Select(g => g.ToString())),
        (1, Gen.Int[1, 5].Select(b => BookUuid.Format(new BookNo(b)).ToUpperInvariant())),
        (2, OddText.Any));

    private static Gen<string> Id { get; } = Gen.Frequency(
        (8, Gen.Int[0, 40].Select(i => new Guid(i, 0x1111, 0x4222, 0x83, 0x33, 0x44, 0x44, 0x55, 0x55, 0x66, 0x66).ToString())),
        (1, Gen.Guid.Select(g => g.ToString("B"))),
        (1, OddText.Any));

    private static Gen<string> Location { get; } = Gen.Frequency(
        (8, Gen.Select(Gen.Int[-5, 80], Gen.Int[-5, 80], Gen.Double, OddText.Any, (s, e, p, path) =>
            "{\"span\":{\"chapterFilename\":\"ch.xhtml\",\"chapterProgress\":" + p.ToString("R", CultureInfo.InvariantCulture)
            + ",\"startChar\":" + s.ToString(CultureInfo.InvariantCulture) + ",\"endChar\":" + e.ToString(CultureInfo.InvariantCulture)
            + ",\"startPath\":" + OddText.Json(path) + ",\"endPath\":\"span#kobo\\\\.1\\\\.1\"}}")),
        (2, Gen.OneOf("{}", "[]", "\"span\"", "null", "7", "{\"span\":" + new string('[', 40) + new string(']', 40) + "}")),
        (1, OddText.Long.Select(t => "{\"span\":{\"chapterTitle\":" + OddText.Json(t) + "}}")));

    private static Gen<string> Member(string name, Gen<string> value) => Gen.Frequency(
        (10, value.Select(v => $"\"{name}\":{OddText.Json(v)}")),
        (1, Gen.OneOf($"\"{name}\":null", $"\"{name}\":5", $"\"{name}\":[]", $"\"{name}\":{{}}")),
        (1, Gen.Const(string.Empty)));

    private static Gen<string> Annotation { get; } = Gen.Select(
        Member("id", Id),
        Member("type", Gen.Frequency((8, Gen.OneOf("highlight", "note", "Highlight")), (2, Gen.OneOf("markup", "dogear", "bookmark")), (1, OddText.Any))),
        Member("highlightedText", Gen.Frequency((8, OddText.Any), (1, Gen.Const(new string('t', 10_001))))),
        Member("noteText", OddText.Any),
        Member("highlightColor", Gen.Frequency((6, Gen.OneOf("#F6F3B3", "#E8AFCF", "#B2E1E8", "#C6E09E", "#A0A0A0")), (1, OddText.Any))),
        Member("clientLastModifiedUtc", Gen.Frequency((6, Gen.OneOf("2024-01-15T10:30:00Z", "2021-11-01T13:10:10.123Z")), (2, PushBodies.ModifiedAt))),
        Gen.Frequency((10, Location.Select(l => "\"location\":" + l)), (1, Gen.Const(string.Empty))),
        (id, type, text, note, color, at, location) =>
            "{" + string.Join(",", new[] { id, type, text, note, color, at, location }.Where(m => m.Length > 0)) + "}");

    private static Gen<byte[]> PatchBody { get; } = Gen.Frequency(
        (12, Gen.Select(Annotation.Array[0, 6], Id.Array[0, 3], (updated, deleted) => Encoding.UTF8.GetBytes(
            $$"""{"updatedAnnotations":[{{string.Join(",", updated)}}],"deletedAnnotationIds":[{{string.Join(",", deleted.Select(OddText.Json))}}]}"""))),
        (2, Gen.OneOf("", "null", "[]", "{}", "{\"updatedAnnotations\":{}}", "{\"updatedAnnotations\":[5,null,\"x\"]}", "{\"deletedAnnotationIds\":[1,{}]}",
            "{\"updatedAnnotations\":" + new string('[', 100) + new string(']', 100) + "}", "{\"updatedAnnotations\":[").Select(Encoding.UTF8.GetBytes)),
        (1, Gen.Byte.Array[1, 64]));

    private static Gen<byte[]> CheckBody { get; } = Gen.Frequency(
        (10, Gen.Select(ContentId, Gen.Frequency((3, OddText.Any), (1, Gen.Const("W/\"kobosync-1-1-0-0\""))), (c, e) => (c, e)).Array[0, 8].Select(items =>
            Encoding.UTF8.GetBytes("[" + string.Join(",", items.Select(i => $$"""{"ContentId":{{OddText.Json(i.c)}},"etag":{{OddText.Json(i.e)}}}""")) + "]"))),
        (2, Gen.OneOf("", "{}", "[1,null,\"x\",[]]", "[{\"ContentId\":5}]", "[" + string.Join(",", Enumerable.Repeat("{}", 2_001)) + "]", "[").Select(Encoding.UTF8.GetBytes)),
        (1, Gen.Byte.Array[1, 64]));

    public static Gen<RestCall> Any(string secret)
    {
        var root = Root(secret);
        var headers = Gen.Frequency(
            (6, Gen.Const(Array.Empty<KeyValuePair<string, string>>())),
            // A header travels as ASCII: printable characters, quotes and commas included.
            (1, Gen.Frequency((3, Gen.String[Gen.Char['!', '~'], 0, 40]), (1, Gen.Const("W/\"kobosync-1-1-0-0\""))).Select(e => new[] { new KeyValuePair<string, string>("If-None-Match", e) })));
        return Gen.Frequency(
            (3, Gen.Select(root, CheckBody, (r, b) => new RestCall("KoboCheckForChanges", HttpMethod.Post, r + "/api/v3/content/checkforchanges", Link, [], b, "application/json"))),
            (3, Gen.Select(root, ContentId, headers, (r, c, h) => new RestCall("KoboGetAnnotations", HttpMethod.Get, $"{r}/api/v3/content/{OddText.Percent(c)}/annotations?limit=100", Link, h, null, null))),
            (6, Gen.Select(root, ContentId, PatchBody, (r, c, b) => new RestCall("KoboPatchAnnotations", HttpMethod.Patch, $"{r}/api/v3/content/{OddText.Percent(c)}/annotations", Link, [], b, "application/json"))));
    }

    /// <summary>What an accepted PATCH stored: the highlights of its book that it reports stored or in conflict.</summary>
    public static void Record(RestCall call, byte[] body, FuzzLedger ledger)
    {
        var segments = call.Target.Split('/');
        var contentId = Uri.UnescapeDataString(segments[^2]);
        if (!BookUuid.TryParse(contentId, out var book))
        {
            return;
        }

        using var answer = JsonDocument.Parse(body);
        foreach (var result in answer.RootElement.GetProperty("results").EnumerateArray())
        {
            if (result.GetProperty("status").GetString() is "stored" or "conflict" && result.TryGetProperty("id", out var id) && id.ValueKind == JsonValueKind.String)
            {
                ledger.Wrote($"highlights/users{FuzzedService.User}-ebooks/{book}/{id.GetString()}");
            }
        }
    }
}
