using System.Globalization;
using System.Text;
using CsCheck;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Reading state put bodies (<c>{"position":{...},"status":{...},"statistics":{...}}</c>) as JSON text:
/// mostly well-formed groups with odd values (percents out of range, NaN and infinity spelled as strings,
/// huge exponents, locations at and past 2,048 code units with NUL and lone surrogates, unknown statuses,
/// negative and fractional minutes, the dates of <see cref="PushBodies.ModifiedAt"/>, unknown and
/// repeated fields), then bodies of other shapes, cut short or not UTF-8.
/// </summary>
internal static class ReadingStateBodies
{
    private static Gen<string> WrongType { get; } = Gen.OneOf("null", "true", "[]", "{}", "\"\"", "\"x\"");

    private static Gen<string> Percent { get; } = Gen.Frequency(
        (6, Gen.Double[0, 100].Select(d => d.ToString("R", CultureInfo.InvariantCulture))),
        (3, Gen.OneOf("0", "100", "-0", "100.0000001", "-1", "1e400", "-1e400", "1e-400", "\"NaN\"", "\"Infinity\"", "\"-Infinity\"", "\"50\"", "NaN")),
        (1, WrongType));

    private static Gen<string> Location { get; } = Gen.Frequency(
        (4, Gen.String[Gen.Char.AlphaNumeric, 0, 60].Select(OddText.Json)),
        (2, Gen.OneOf(2_047, 2_048, 2_049, 70_000).Select(n => OddText.Json(new string('l', n)))),
        (3, OddText.Any.Select(OddText.Json)),
        (1, WrongType));

    private static Gen<string> Status { get; } = Gen.Frequency(
        (6, Gen.OneOf("\"ready\"", "\"reading\"", "\"finished\"")),
        (2, Gen.OneOf("\"Reading\"", "\"ReadyToRead\"", "\"Finished\"", "\"paused\"", "\"\"", "0")),
        (1, OddText.Any.Select(OddText.Json)));

    private static Gen<string> Minutes { get; } = Gen.Frequency(
        (6, Gen.Int[0, 100_000].Select(i => i.ToString(CultureInfo.InvariantCulture))),
        (3, Gen.OneOf("-1", "2147483647", "2147483648", "-2147483648", "1.5", "1e2", "\"10\"", "1e400")),
        (1, WrongType));

    private static Gen<string?> Group(string name, Gen<string> value) =>
        Group(Gen.Select(Maybe(value), Maybe(PushBodies.ModifiedAt), (v, at) => new[] { (name, v), ("modifiedAt", at) }));

    private static Gen<string?> Group(string name1, Gen<string> value1, string name2, Gen<string> value2) =>
        Group(Gen.Select(Maybe(value1), Maybe(value2), Maybe(PushBodies.ModifiedAt), (v1, v2, at) => new[] { (name1, v1), (name2, v2), ("modifiedAt", at) }));

    private static Gen<string?> Group(Gen<(string Name, string? Value)[]> fields) =>
        Gen.Frequency(
            (6, fields.Select(f => (string?)("{" + string.Join(",", f.Where(m => m.Value is not null).Select(m => $"\"{m.Name}\":{m.Value}")) + "}"))),
            (4, Gen.Const((string?)null)),
            (1, WrongType.Select(w => (string?)w)));

    private static Gen<string> Put { get; } = Gen.Select(
        Group("percent", Percent, "location", Location),
        Group("value", Status),
        Group("timeSpentMinutes", Minutes),
        Gen.Frequency((10, Gen.Const(string.Empty)), (1, Gen.OneOf(",\"position\":null", ",\"extra\":1", ",\"status\":{\"value\":\"ready\",\"value\":\"reading\"}"))),
        (position, status, statistics, extra) =>
        {
            var members = new[] { ("position", position), ("status", status), ("statistics", statistics) }
                .Where(g => g.Item2 is not null).Select(g => $"\"{g.Item1}\":{g.Item2}");
            return "{" + string.Join(",", members) + extra + "}";
        });

    private static Gen<byte[]> Shapes { get; } = Gen.OneOf(
        "", " ", "null", "[]", "0", "\"position\"", "{\"position\":{\"percent\":1", "{\"position\":" + new string('[', 10_000) + new string(']', 10_000) + "}",
        "{\"position\":{\"percent\":1,\"location\":\"" + new string('x', 2_000_000) + "\",\"modifiedAt\":\"2026-01-01T00:00:00Z\"}}")
        .Select(Encoding.UTF8.GetBytes);

    public static Gen<byte[]> Any { get; } = Gen.Frequency(
        (14, Put.Select(Encoding.UTF8.GetBytes)),
        (1, Put.Select(json => (byte[])[.. Encoding.UTF8.GetBytes(json[..(json.Length / 2)]), 0xFF, 0xC0, .. Encoding.UTF8.GetBytes(json[(json.Length / 2)..])])),
        (1, Shapes));

    private static Gen<string?> Maybe(Gen<string> value) => Gen.Frequency((8, value.Select(v => (string?)v)), (1, Gen.Const((string?)null)));
}
