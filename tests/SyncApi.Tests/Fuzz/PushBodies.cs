using System.Globalization;
using System.Text;
using CsCheck;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Push bodies (<c>{"changes":[...]}</c>) as JSON text: mostly well-formed changes with odd values
/// (wrong JSON types, out-of-range numbers and dates, odd strings with NUL and lone surrogates, unknown
/// fields, duplicate keys), then broken JSON (cut short, stray bytes, comments, trailing commas, invalid
/// UTF-8, a byte-order mark), very deep nesting, very many changes, and bodies of other shapes.
/// </summary>
internal static class PushBodies
{
    private static readonly string[] Colors = ["yellow", "pink", "blue", "green"];

    private static Gen<string> WrongType { get; } = Gen.OneOf(
        "null", "true", "0", "-1", "1.5", "1e3", "2147483648", "-2147483649", "9223372036854775808", "[]", "[\"a\"]", "{}", "{\"a\":1}", "\"\"");

    private static Gen<string> Text { get; } = Gen.Frequency(
        (6, Gen.String[Gen.Char.AlphaNumeric, 1, 30].Select(OddText.Json)),
        (1, Gen.OneOf("a\0b", "\0", "\ud800", "x\udc00y").Select(OddText.Json)),
        (4, OddText.Any.Select(OddText.Json)),
        (1, WrongType));

    private static Gen<string> Number { get; } = Gen.Frequency(
        (6, Gen.Int[0, 200].Select(i => i.ToString(CultureInfo.InvariantCulture))),
        (2, Gen.OneOf("-1", "0", "2147483647", "2147483648", "-2147483648", "1.0", "1.5", "1e2", "-0", "\"10\"", "\"x\"", "\"\"", "null", "true", "1e400")),
        (1, WrongType));

    private static Gen<string> BookNo { get; } = Gen.Frequency(
        (8, Gen.Int[1, 20].Select(b => Quote(b.ToString(CultureInfo.InvariantCulture)))),
        (2, Gen.OneOf("\"0\"", "\"07\"", "\"-7\"", "\"+7\"", "\" 7\"", "\"999999999999999999\"", "\"1000000000000000000\"", "7", "7.0", "null")),
        (1, OddText.Any.Select(OddText.Json)));

    private static Gen<string> Key { get; } = Gen.Frequency(
        (8, Gen.Int[0, 40].Select(k => Quote($"k{k}"))),
        (2, Gen.OneOf("\"\"", $"\"{new string('k', 64)}\"", $"\"{new string('k', 65)}\"", "\"a b\"", "\"a/b\"", "\"a.b\"", "1", "null")),
        (1, OddText.Any.Select(OddText.Json)));

    /// <summary>A date a device might send, or one it never should: year 1 and 9999, offsets that push past them, no offset, no time, numbers.</summary>
    public static Gen<string> ModifiedAt { get; } = Gen.Frequency(
        (8, Gen.Int[-100_000, 1_000].Select(minutes => Quote(DateTimeOffset.UtcNow.AddMinutes(minutes).ToString("O", CultureInfo.InvariantCulture)))),
        (4, Gen.OneOf(
            "\"0001-01-01T00:00:00Z\"", "\"0001-01-01T00:00:00+14:00\"", "\"0001-01-01T00:00:00-14:00\"", "\"9999-12-31T23:59:59.9999999Z\"",
            "\"9999-12-31T23:59:59-14:00\"", "\"9999-12-31T23:59:59+14:00\"", "\"1970-01-01T00:00:00Z\"", "\"2026-02-30T00:00:00Z\"",
            "\"2026-01-01\"", "\"2026-01-01T00:00:00\"", "\"2026-01-01T00:00:00.123456789Z\"", "\"2026-01-01T24:00:00Z\"", "\"now\"", "\"\"",
            "\"2026-01-01T00:00:00+99:00\"", "\"+002026-01-01T00:00:00Z\"", "1767225600", "-1", "null", "[]", "{}", "1e400")),
        (1, OddText.Any.Select(OddText.Json)));

    private static Gen<(string Name, string Value)> Field { get; } = Gen.Frequency(
        (1, Gen.Select(OddText.Any, Text, (name, value) => (name, value))),
        (1, Gen.OneOf("op", "bookNo", "key", "text", "note", "color", "modifiedAt", "changes", "Op", "OP", "book_no", "modified_at")
            .Select(Text, (name, value) => (name, value))));

    /// <summary>A Kobo location: an object as a device sends it (as a JSON string), odd text, one past the limit, or the wrong JSON type.</summary>
    private static Gen<string> Location { get; } = Gen.Frequency(
        (4, Gen.Int[0, 90].Select(c => Quote(
            $$$"""{"span":{"startChar":{{{c}}},"endChar":{{{c + 9}}},"startPath":"span#kobo\\.1\\.1","endPath":"span#kobo\\.1\\.1"}}"""))),
        (2, OddText.Any.Select(OddText.Json)),
        (1, Gen.OneOf(Quote(new string('x', 4_096)), Quote(new string('x', 4_097)), "\"\"", "{}", "[]", "5")));

    /// <summary>One change: each field usually right, sometimes odd, of the wrong type or absent; sometimes an unknown or repeated field.</summary>
    private static Gen<string> Change { get; } =
        Gen.Select(
            Gen.Select(
                Maybe(Gen.Frequency((6, Gen.OneOf("\"upsert\"", "\"delete\"")), (1, Gen.OneOf("\"UPSERT\"", "\"rename\"", "\"\"", "0", "null")), (1, OddText.Any.Select(OddText.Json)))),
                Maybe(BookNo), Maybe(Key),
                Maybe(Gen.Frequency((4, Gen.Const("\"\"")), (3, Gen.Int[1, 6].Select(v => Quote(v.ToString(CultureInfo.InvariantCulture)))), (1, Gen.OneOf("\"0\"", "\"-1\"", "\"9223372036854775808\"", "1", "\"v1\"")), (1, OddText.Any.Select(OddText.Json))))),
            Gen.Select(
                Maybe(Text), Maybe(Number), Maybe(Number),
                Maybe(Gen.Frequency((8, Gen.OneOf(Colors).Select(Quote)), (1, Gen.OneOf("\"Yellow\"", "\"red\"", "\"\"", "1")), (1, OddText.Any.Select(OddText.Json)))),
                Maybe(Text), Maybe(ModifiedAt)),
            Gen.Frequency((12, Gen.Const<(string, string)[]>(Array.Empty<(string, string)>())), (1, Field.Array[1, 3])),
            Gen.Frequency((3, Gen.Const((string?)null)), (1, Location.Select(l => (string?)l))),
            (head, body, extra, location) =>
            {
                (string, string?)[] fields =
                [
                    ("op", head.Item1), ("bookNo", head.Item2), ("key", head.Item3), ("baseVersion", head.Item4),
                    ("text", body.Item1), ("start", body.Item2), ("length", body.Item3), ("color", body.Item4), ("note", body.Item5), ("modifiedAt", body.Item6),
                    ("location", location),
                ];
                var members = fields.Where(f => f.Item2 is not null).Select(f => $"{Quote(f.Item1)}:{f.Item2}")
                    .Concat(extra.Select(f => $"{OddText.Json(f.Item1)}:{f.Item2}"));
                return "{" + string.Join(",", members) + "}";
            });

    private static Gen<string> Batch { get; } = Gen.Frequency(
        (20, Change.Array[0, 4].Select(changes => $"{{\"changes\":[{string.Join(",", changes)}]}}")),
        (2, Gen.OneOf("{\"changes\":[]}", "{\"changes\":null}", "{}", "{\"changes\":{}}", "{\"changes\":[null]}", "{\"changes\":[1,\"a\",[]]}", "{\"changes\":[{}]}")),
        (1, Gen.OneOf(500, 501, 5_000).Select(n =>
            $"{{\"changes\":[{string.Join(",", Enumerable.Range(0, n).Select(i => $"{{\"op\":\"upsert\",\"bookNo\":\"{1 + (i % 20)}\",\"key\":\"bulk{i % 50}\",\"text\":\"t\",\"start\":0,\"length\":1,\"color\":\"blue\",\"modifiedAt\":\"2026-01-01T00:00:00Z\"}}"))}]}}")));

    /// <summary>Leaves the JSON alone, or breaks it the ways a torn upload or a sloppy client would.</summary>
    private static Gen<Func<string, byte[]>> Breakage { get; } = Gen.Frequency(
        (12, Gen.Const<Func<string, byte[]>>(Encoding.UTF8.GetBytes)),
        (1, Gen.Double[0, 1].Select<double, Func<string, byte[]>>(at => json => Encoding.UTF8.GetBytes(json[..(int)(json.Length * at)]))),
        (1, Gen.Select(Gen.Double[0, 1], OddText.AnyChar).Select<(double, char), Func<string, byte[]>>(p => json => Encoding.UTF8.GetBytes(json.Insert((int)(json.Length * p.Item1), p.Item2.ToString())))),
        (1, Gen.OneOf<Func<string, byte[]>>(
            json => Encoding.UTF8.GetBytes(json.Replace("\"changes\"", "'changes'", StringComparison.Ordinal)),
            json => Encoding.UTF8.GetBytes(json.Replace("}", ",}", StringComparison.Ordinal)),
            json => Encoding.UTF8.GetBytes("/* c */" + json),
            json => Encoding.UTF8.GetBytes(json + json),
            json => Encoding.UTF8.GetBytes(json + "\0"),
            json => [0xEF, 0xBB, 0xBF, .. Encoding.UTF8.GetBytes(json)],
            json => Encoding.Unicode.GetBytes(json),
            json => [.. Encoding.UTF8.GetBytes(json[..(json.Length / 2)]), 0xFF, 0xC0, 0xAF, 0xED, 0xA0, 0x80, .. Encoding.UTF8.GetBytes(json[(json.Length / 2)..])],
            json => Encoding.UTF8.GetBytes(json.Replace("\"", "\\\"", StringComparison.Ordinal)))));

    private static Gen<byte[]> Shapes { get; } = Gen.OneOf(
        "", " ", "null", "[]", "\"changes\"", "0", "{\"changes\":[{\"op\":\"upsert\"", "{\"changes\":" + new string('[', 10_000) + new string(']', 10_000) + "}",
        "{\"changes\":[{\"text\":" + new string('{', 70) + new string('}', 70) + "}]}", "{\"changes\":[],\"changes\":[{}]}",
        "{\"changes\":[{\"op\":\"upsert\",\"op\":\"delete\",\"bookNo\":\"1\",\"key\":\"dup\",\"modifiedAt\":\"2026-01-01T00:00:00Z\"}]}",
        "{\"changes\":[{\"text\":\"" + new string('x', 2_000_000) + "\"}]}")
        .Select(Encoding.UTF8.GetBytes);

    public static Gen<byte[]> Any { get; } = Gen.Frequency(
        (14, Gen.Select(Batch, Breakage, (json, broken) => broken(json))),
        (1, Shapes));

    private static Gen<string?> Maybe(Gen<string> value) => Gen.Frequency((12, value.Select(v => (string?)v)), (1, Gen.Const((string?)null)));

    private static string Quote(string value) => OddText.Json(value);
}
