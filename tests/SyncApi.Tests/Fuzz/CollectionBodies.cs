using System.Text;
using CsCheck;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Collection push bodies (<c>{"changes":[{op, collectionId, name, bookNos, modifiedAt}, ...]}</c>) as JSON
/// text: mostly well-formed operations on a few shared collections with odd values (unknown ops, ids that are
/// not UUIDs or the nil one, names empty, long, with NUL or lone surrogates, book numbers out of range or of
/// the wrong type, the dates of <see cref="PushBodies.ModifiedAt"/>), then bodies of other shapes. Also the
/// collection ids and Kobo tag bodies the other generators use.
/// </summary>
internal static class CollectionBodies
{
    /// <summary>A few collection ids every generator shares, so operations meet stored collections.</summary>
    public static readonly string[] Ids =
    [
        "0f8fad5b-d9cb-469f-a165-70867728950e", "7c9e6679-7425-40de-944b-e07fc1f90ae7", "9b2e1f3a-4c5d-4e6f-8a7b-1c2d3e4f5a6b",
    ];

    private static Gen<string> WrongType { get; } = Gen.OneOf("null", "true", "[]", "{}", "0");

    public static Gen<string> Id { get; } = Gen.Frequency(
        (10, Gen.OneOf(Ids)),
        (2, Gen.OneOf("00000000-0000-0000-0000-000000000000", "0F8FAD5B-D9CB-469F-A165-70867728950E", "{0f8fad5b-d9cb-469f-a165-70867728950e}",
            "0f8fad5bd9cb469fa16570867728950e", "0f8fad5b-d9cb-469f-a165-70867728950", "not-a-uuid", "")),
        (2, OddText.Any));

    private static Gen<string> Name { get; } = Gen.Frequency(
        (6, Gen.String[Gen.Char.AlphaNumeric, 1, 20].Select(OddText.Json)),
        (2, Gen.OneOf(255, 256, 257, 70_000).Select(n => OddText.Json(new string('n', n)))),
        (3, OddText.Any.Select(OddText.Json)),
        (1, WrongType));

    private static Gen<string> Book { get; } = Gen.Frequency(
        (8, Gen.Int[1, 21].Select(b => $"\"{b}\"")),
        (2, Gen.OneOf("\"0\"", "\"-1\"", "\"01\"", "\"9999999999999999999\"", "\"1e3\"", "\"\"", "7", "null", "[]")),
        (1, OddText.Any.Select(OddText.Json)));

    private static Gen<string> Books { get; } = Gen.Frequency(
        (8, Book.Array[1, 5].Select(b => "[" + string.Join(",", b) + "]")),
        (1, Gen.OneOf("[]", "null", "\"1\"", "{}", "[" + string.Join(",", Enumerable.Range(1, 5_001).Select(i => $"\"{i}\"")) + "]")));

    private static Gen<string> Op { get; } = Gen.Frequency(
        (10, Gen.OneOf("\"upsert\"", "\"delete\"", "\"addBooks\"", "\"removeBooks\"")),
        (2, Gen.OneOf("\"Upsert\"", "\"addbooks\"", "\"rename\"", "\"\"", "null", "1")),
        (1, OddText.Any.Select(OddText.Json)));

    private static Gen<string?> Maybe(Gen<string> value) => Gen.Frequency((8, value.Select(v => (string?)v)), (1, Gen.Const((string?)null)));

    private static Gen<string> Operation { get; } = Gen.Select(
        Maybe(Op), Maybe(Id.Select(OddText.Json)), Maybe(Name), Maybe(Books), Maybe(PushBodies.ModifiedAt),
        (op, id, name, books, at) =>
        {
            var members = new[] { ("op", op), ("collectionId", id), ("name", name), ("bookNos", books), ("modifiedAt", at) }
                .Where(m => m.Item2 is not null).Select(m => $"\"{m.Item1}\":{m.Item2}");
            return "{" + string.Join(",", members) + "}";
        });

    private static Gen<byte[]> Shapes { get; } = Gen.OneOf(
        "", " ", "null", "[]", "{}", "{\"changes\":null}", "{\"changes\":[null]}", "{\"changes\":{}}", "{\"changes\":[{\"op\":\"upsert\"",
        "{\"changes\":" + new string('[', 10_000) + new string(']', 10_000) + "}",
        "{\"changes\":[" + string.Join(",", Enumerable.Range(0, 501).Select(_ => "{}")) + "]}")
        .Select(Encoding.UTF8.GetBytes);

    public static Gen<byte[]> Any { get; } = Gen.Frequency(
        (12, Operation.Array[0, 5].Select(ops => Encoding.UTF8.GetBytes("{\"changes\":[" + string.Join(",", ops) + "]}"))),
        (1, Shapes));

    private static Gen<string> Item { get; } = Gen.Frequency(
        (8, Gen.Int[1, 25].Select(b => $"{{\"RevisionId\":\"{Kobo.Sync.Domain.Ids.BookUuid.Format(new Kobo.Sync.Domain.Ids.BookNo(b))}\",\"Type\":\"ProductRevisionTagItem\"}}")),
        (2, Gen.OneOf(
            "{\"RevisionId\":\"11111111-2222-3333-4444-555555555555\",\"Type\":\"ProductRevisionTagItem\"}", "{\"RevisionId\":7,\"Type\":\"ProductRevisionTagItem\"}",
            "{\"RevisionId\":\"6b6f626f-5379-8e63-8000-000000000001\",\"Type\":\"Other\"}", "{}", "null", "\"x\"", "[]")),
        (1, OddText.Any.Select(t => $"{{\"RevisionId\":{OddText.Json(t)},\"Type\":\"ProductRevisionTagItem\"}}")));

    /// <summary>Kobo tag bodies: <c>{Name, Items}</c> with odd names and items, and other shapes.</summary>
    public static Gen<byte[]> KoboTag { get; } = Gen.Frequency(
        (10, Gen.Select(Maybe(Name), Maybe(Item.Array[0, 6].Select(i => "[" + string.Join(",", i) + "]")), (name, items) =>
            Encoding.UTF8.GetBytes("{" + string.Join(",", new[] { ("Name", name), ("Items", items) }.Where(m => m.Item2 is not null).Select(m => $"\"{m.Item1}\":{m.Item2}")) + "}"))),
        (2, Shapes),
        (1, Gen.Const(Encoding.UTF8.GetBytes("{\"Name\":\"x\",\"Items\":[" + string.Join(",", Enumerable.Range(1, 6_000).Select(_ => "{\"RevisionId\":\"6b6f626f-5379-8e63-8000-000000000001\",\"Type\":\"ProductRevisionTagItem\"}")) + "]}"))));
}
