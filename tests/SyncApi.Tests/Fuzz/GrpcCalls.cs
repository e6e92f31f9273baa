using System.Globalization;
using System.Text;
using CsCheck;
using Google.Protobuf;
using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>One generated gRPC call: the method's path, the request's headers and its body, framed or not.</summary>
internal sealed record GrpcCall(
    string Operation, string Path, FuzzAuth Auth, KeyValuePair<string, string>[] Metadata, byte[] Body, string ContentType = "application/grpc",
    string? RevokedDevice = null, string Mutation = "")
{
    /// <summary>As the spec defines a gRPC request: application/grpc, or it followed by '+' or ';'.</summary>
    public bool IsGrpc => ContentType == "application/grpc" || ContentType.StartsWith("application/grpc+", StringComparison.Ordinal)
        || ContentType.StartsWith("application/grpc;", StringComparison.Ordinal);

    public override string ToString()
    {
        var text = new StringBuilder().Append(CultureInfo.InvariantCulture, $"{Operation}: POST {Path}; {Auth}; content-type: {ContentType}");
        foreach (var (name, value) in Metadata)
        {
            text.Append(CultureInfo.InvariantCulture, $"; {name}: {OddText.Show(value)}");
        }

        if (Mutation.Length > 0)
        {
            text.Append("; ").Append(Mutation);
        }

        return text.Append("; body: ").Append(Convert.ToHexString(Body.AsSpan(0, Math.Min(Body.Length, 400)))).Append(Body.Length > 400 ? $"... ({Body.Length} bytes)" : string.Empty).ToString();
    }
}

/// <summary>
/// Well-formed messages for every method of <c>kobo.sync.v1.SyncService</c> with odd field values:
/// the fuzzed user mostly, the bystander, zero, negative and extreme numbers, real, mutated and made-up
/// cursors and sync tokens, odd strings, and timestamps out of range (seconds past year 9999 or before
/// year 1, nanos outside 0..999,999,999).
/// </summary>
internal static class GrpcCalls
{
    public const string Service = "/kobo.sync.v1.SyncService/";

    private static Gen<long> UserNo { get; } = Gen.Frequency(
        (20, Gen.Const(FuzzedService.User)),
        (2, Gen.Const(FuzzedService.Bystander)),
        (2, Gen.OneOf(0L, -1L, 3L, long.MaxValue, long.MinValue, 999_999_999_999_999_999L, 1_000_000_000_000_000_000L)));

    private static Gen<long> BookNo { get; } = Gen.Frequency(
        (10, Gen.Long[1, 21]),
        (2, Gen.OneOf(0L, -1L, long.MaxValue, long.MinValue, 1_000_000_000_000_000_000L)));

    private static Gen<int> PageSize { get; } = Gen.Frequency(
        (6, Gen.Const(0)), (6, Gen.Int[1, 100]), (2, Gen.OneOf(-1, 101, 999, 1000, 1001, int.MaxValue, int.MinValue)));

    /// <summary>Protobuf strings must be UTF-8: a lone surrogate goes as U+FFFD here (invalid UTF-8 is the wire fuzz's).</summary>
    private static Gen<string> Text { get; } = OddText.Any.Select(s => Encoding.UTF8.GetString(Encoding.UTF8.GetBytes(s)));

    private static Gen<Timestamp?> ModifiedAt { get; } = Gen.Frequency(
        (8, Gen.Select(Gen.Long[-6_000_000, 60_000], Gen.Int[0, 999_999_999],
            (ago, nanos) => (Timestamp?)new Timestamp { Seconds = DateTimeOffset.UtcNow.ToUnixTimeSeconds() + ago, Nanos = nanos })),
        (3, Gen.Select(
            Gen.OneOf(long.MinValue, long.MaxValue, -62_135_596_800L, -62_135_596_801L, 253_402_300_799L, 253_402_300_800L, 0L, -1L, 1_767_225_600L),
            Gen.OneOf(0, 999_999_999, -1, 1_000_000_000, int.MaxValue, int.MinValue),
            (seconds, nanos) => (Timestamp?)new Timestamp { Seconds = seconds, Nanos = nanos })),
        (1, Gen.Const((Timestamp?)null)));

    private static Gen<PushedChange> Change { get; } = Gen.Select(
        Gen.Select(
            Gen.Frequency((6, Gen.OneOf("upsert", "delete")), (1, Text)),
            BookNo,
            Gen.Frequency((8, Gen.Int[0, 40].Select(k => $"k{k}")), (2, Text)),
            Gen.Frequency((4, Gen.Const(string.Empty)), (3, Gen.Int[1, 6].Select(v => v.ToString(CultureInfo.InvariantCulture))), (1, Text))),
        Gen.Select(
            Gen.Frequency((6, Gen.String[Gen.Char.AlphaNumeric, 1, 30]), (4, Text)),
            Gen.Frequency((6, Gen.Int[0, 200].Select(i => (int?)i)), (1, Gen.Const((int?)null)), (1, Gen.OneOf<int?>(-1, int.MaxValue, int.MinValue))),
            Gen.Frequency((6, Gen.Int[1, 50].Select(i => (int?)i)), (1, Gen.Const((int?)null)), (1, Gen.OneOf<int?>(0, -1, int.MaxValue, int.MinValue))),
            Gen.Frequency((8, Gen.OneOf("yellow", "pink", "blue", "green")), (1, Text)),
            Gen.Frequency((3, Gen.Const((string?)null)), (2, Text.Select(t => (string?)t)))),
        Gen.Select(ModifiedAt, Gen.Frequency((3, Gen.Const((string?)null)), (2, Text.Select(t => (string?)t)), (1, Gen.OneOf<string?>(new string('x', 4_096), new string('x', 4_097), string.Empty))), (at, location) => (at, location)),
        (head, body, tail) =>
        {
            var (at, location) = tail;
            var change = new PushedChange { Op = head.Item1, BookNo = head.Item2, Key = head.Item3, BaseVersion = head.Item4, Text = body.Item1, Color = body.Item4 };
            if (body.Item2 is { } start)
            {
                change.Start = start;
            }

            if (body.Item3 is { } length)
            {
                change.Length = length;
            }

            if (body.Item5 is { } note)
            {
                change.Note = note;
            }

            if (location is not null)
            {
                change.Location = location;
            }

            change.ModifiedAt = at;
            return change;
        });

    private static Gen<KeyValuePair<string, string>[]> Metadata { get; } = Gen.Frequency(
        (12, Gen.Const(Array.Empty<KeyValuePair<string, string>>())),
        (1, Gen.OneOf("1n", "0S", "1m", "99999999H", "100000000S", "abc", "-1m", "1", "1.5S", "").Select(t => new[] { new KeyValuePair<string, string>("grpc-timeout", t) })),
        (1, Gen.OneOf(
            new KeyValuePair<string, string>("grpc-encoding", "identity"),
            new KeyValuePair<string, string>("grpc-accept-encoding", "x-unknown, gzip;q=2"),
            new KeyValuePair<string, string>("grpc-status", "0"),
            new KeyValuePair<string, string>("x-custom-bin", "!!!not base64!!!"),
            new KeyValuePair<string, string>("x-long", new string('m', 6_000))).Array[1, 2]));

    /// <summary>Kobo link ids: well-formed ones no link has, and odd text (a link's id is 16 hexadecimal characters).</summary>
    public static Gen<string> KoboLinkId { get; } = Gen.Frequency(
        (3, Gen.ULong.Select(v => v.ToString("x16", CultureInfo.InvariantCulture))),
        (1, Gen.OneOf(string.Empty, "0123456789ABCDEF", "0123456789abcdef0", "0123456789abcde", "g123456789abcdef", "+123456789abcdef", " 123456789abcdef")),
        (2, Text));

    /// <summary>(operation, message) for every method, the message's fields from the generators above.</summary>
    public static Gen<(string Operation, IMessage Message, string? RevokedDevice)> Messages(FuzzWorld world)
    {
        var cursor = Gen.Frequency((4, Gen.Const(string.Empty)), (4, RestCalls.Opaque(world.Cursors, world.SyncTokens)), (2, Text));
        var bookCursor = Gen.Frequency((4, Gen.Const(string.Empty)), (4, RestCalls.Opaque(world.BookCursors, world.Cursors)), (2, Text));
        var since = Gen.Frequency((4, Gen.Const(string.Empty)), (4, RestCalls.Opaque(world.SyncTokens, world.Cursors)), (2, Text));
        var device = Gen.Frequency((3, Gen.Int[0, 5].Select(i => $"old-device-{i}")), (4, Text), (1, Gen.Const("\0")));
        return Gen.Frequency(
            (2, UserNo.Select(u => ("GetUser", (IMessage)new GetUserRequest { UserNo = u }, (string?)null))),
            (3, Gen.Select(UserNo, PageSize, cursor, (u, p, c) => ("ListUserHighlights", (IMessage)new ListUserHighlightsRequest { UserNo = u, PageSize = p, Cursor = c }, (string?)null))),
            (3, Gen.Select(UserNo, BookNo, PageSize, bookCursor, (u, b, p, c) =>
                ("ListBookHighlights", (IMessage)new ListBookHighlightsRequest { UserNo = u, BookNo = b, PageSize = p, Cursor = c }, (string?)null))),
            (6, Gen.Select(UserNo, Gen.Frequency((30, Change.Array[0, 4]), (1, Change.Array[500, 501])), (u, changes) =>
            {
                var request = new PushChangesRequest { UserNo = u };
                request.Changes.AddRange(changes);
                return ("PushChanges", (IMessage)request, (string?)null);
            })),
            (3, Gen.Select(UserNo, since, PageSize, (u, s, p) => ("PullChanges", (IMessage)new PullChangesRequest { UserNo = u, Since = s, PageSize = p }, (string?)null))),
            (1, UserNo.Select(u => ("ListDevices", (IMessage)new ListDevicesRequest { UserNo = u }, (string?)null))),
            (2, Gen.Select(UserNo, device, (u, d) => ("RevokeDevice", (IMessage)new RevokeDeviceRequest { UserNo = u, DeviceId = d }, (string?)d))),
            (1, UserNo.Select(u => ("ListKoboLinks", (IMessage)new ListKoboLinksRequest { UserNo = u }, (string?)null))),
            (1, Gen.Select(UserNo, KoboLinkId, (u, id) => ("RevokeKoboLink", (IMessage)new RevokeKoboLinkRequest { UserNo = u, LinkId = id }, (string?)null))),
            (1, Gen.Select(UserNo, BookNo, (u, b) => ("GetReadingState", (IMessage)new GetReadingStateRequest { UserNo = u, BookNo = b }, (string?)null))),
            (3, Gen.Select(UserNo, BookNo, ReadingStatePut, (u, b, put) =>
            {
                put.UserNo = u;
                put.BookNo = b;
                return ("PutReadingState", (IMessage)put, (string?)null);
            })),
            (1, Gen.Select(UserNo, PageSize, Gen.Frequency((4, Gen.Const(string.Empty)), (2, Gen.OneOf(CollectionBodies.Ids)), (2, Text)), (u, p, c) =>
                ("ListCollections", (IMessage)new ListCollectionsRequest { UserNo = u, PageSize = p, Cursor = c }, (string?)null))),
            (1, Gen.Select(UserNo, CollectionId, (u, id) => ("GetCollection", (IMessage)new GetCollectionRequest { UserNo = u, CollectionId = id }, (string?)null))),
            (4, Gen.Select(UserNo, Gen.Frequency((30, CollectionOp.Array[0, 4]), (1, CollectionOp.Array[500, 501])), (u, ops) =>
            {
                var request = new PushCollectionChangesRequest { UserNo = u };
                request.Changes.AddRange(ops);
                return ("PushCollectionChanges", (IMessage)request, (string?)null);
            })));
    }

    private static Gen<string> CollectionId { get; } = CollectionBodies.Id.Select(t => Encoding.UTF8.GetString(Encoding.UTF8.GetBytes(t)));

    /// <summary>A collection operation with odd ops, ids, names, book numbers and times.</summary>
    private static Gen<CollectionOp> CollectionOp { get; } = Gen.Select(
        Gen.Frequency((8, Gen.OneOf("upsert", "delete", "addBooks", "removeBooks")), (1, Text)),
        CollectionId,
        Gen.Frequency((4, Gen.String[Gen.Char.AlphaNumeric, 1, 20]), (1, Gen.OneOf(string.Empty, new string('n', 256), new string('n', 257))), (2, Text)),
        Gen.Frequency((6, BookNo.Array[0, 4]), (1, Gen.Const(Enumerable.Range(1, 5_001).Select(i => (long)i).ToArray()))),
        ModifiedAt,
        (op, id, name, books, at) =>
        {
            var message = new CollectionOp { Op = op, CollectionId = id, Name = name, ModifiedAt = at };
            message.BookNos.AddRange(books);
            return message;
        });

    /// <summary>A put's groups, each present or not, with odd percents (NaN, infinities, out of range), locations, statuses, minutes and times.</summary>
    private static Gen<PutReadingStateRequest> ReadingStatePut { get; } = Gen.Select(
        Gen.Frequency(
            (3, Gen.Const((ReadingPosition?)null)),
            (4, Gen.Select(
                Gen.Frequency((6, Gen.Double[0, 100]), (2, Gen.OneOf(double.NaN, double.PositiveInfinity, double.NegativeInfinity, -0.0, -1, 100.000001, double.MaxValue, double.Epsilon))),
                Gen.Frequency((3, Gen.Const((string?)null)), (3, Text.Select(t => (string?)t)), (1, Gen.OneOf(2_048, 2_049).Select(n => (string?)new string('l', n)))),
                ModifiedAt,
                (percent, location, at) =>
                {
                    var position = new ReadingPosition { Percent = percent, ModifiedAt = at };
                    if (location is not null)
                    {
                        position.Location = location;
                    }

                    return (ReadingPosition?)position;
                }))),
        Gen.Frequency(
            (3, Gen.Const((ReadingStatus?)null)),
            (4, Gen.Select(Gen.Frequency((6, Gen.OneOf("ready", "reading", "finished")), (2, Text)), ModifiedAt, (v, at) => (ReadingStatus?)new ReadingStatus { Value = v, ModifiedAt = at }))),
        Gen.Frequency(
            (3, Gen.Const((ReadingStatistics?)null)),
            (4, Gen.Select(Gen.Frequency((6, Gen.Int[0, 10_000]), (1, Gen.OneOf(-1, int.MinValue, int.MaxValue))), ModifiedAt,
                (m, at) => (ReadingStatistics?)new ReadingStatistics { TimeSpentMinutes = m, ModifiedAt = at }))),
        (position, status, statistics) => new PutReadingStateRequest { Position = position, Status = status, Statistics = statistics });

    /// <summary>Well-formed calls: each message framed as gRPC frames it, with the token and now and then odd metadata.</summary>
    public static Gen<GrpcCall> Calls(FuzzWorld world, Gen<FuzzAuth> auth) =>
        Gen.Select(Messages(world), auth, Metadata, (m, a, metadata) =>
            new GrpcCall(m.Operation, Service + m.Operation, a, metadata, Frame(m.Message.ToByteArray()), RevokedDevice: m.RevokedDevice));

    public static byte[] Frame(byte[] message, byte flag = 0, uint? length = null)
    {
        var frame = new byte[5 + message.Length];
        frame[0] = flag;
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(frame.AsSpan(1), length ?? (uint)message.Length);
        message.CopyTo(frame, 5);
        return frame;
    }
}
