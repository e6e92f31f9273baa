using System.IO.Compression;
using CsCheck;
using Google.Protobuf;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Protobuf and gRPC framing as a broken or hostile client writes them: a message of
/// <see cref="GrpcCalls"/> cut short, with flipped or inserted bytes, truncated and over-long varints,
/// a length prefix past the end, wrong wire types for known field numbers, unknown fields, groups that
/// never end, field number 0, nesting past the parser's depth, invalid UTF-8 in a string; and frames
/// with a compressed flag but no encoding, a flag that is neither 0 nor 1, a length prefix that lies,
/// two messages for a unary call, an encoding the server does not have, other content types, and paths
/// of the health, reflection and unknown services.
/// </summary>
internal static class GrpcWire
{
    public static Gen<GrpcCall> Calls(FuzzWorld world, Gen<FuzzAuth> auth) =>
        Gen.Frequency(
            (5, Gen.Select(GrpcCalls.Messages(world), auth, Payload, (m, a, mutate) =>
            {
                var (body, what) = mutate(m.Message.ToByteArray());
                return new GrpcCall(m.Operation, GrpcCalls.Service + m.Operation, a, [], GrpcCalls.Frame(body), RevokedDevice: m.RevokedDevice, Mutation: what);
            })),
            (3, Gen.Select(GrpcCalls.Messages(world), auth, Framing, (m, a, frame) => frame(m.Operation, m.Message.ToByteArray(), a) with { RevokedDevice = m.RevokedDevice })),
            (1, Gen.Select(Gen.OneOf(
                    "/grpc.health.v1.Health/Check", "/grpc.health.v1.Health/Watch", "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
                    "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", "/kobo.sync.v1.SyncService/Nope", "/kobo.sync.v1.SyncService/",
                    "/kobo.sync.v1.SyncService/getUser", "/v1/users/1", "/"),
                Gen.Byte.Array[0, 40], auth,
                (path, bytes, a) => new GrpcCall("Other", path, a, [new("grpc-timeout", "500m")], GrpcCalls.Frame(bytes)))));

    private static Gen<Func<byte[], (byte[], string)>> Payload { get; } = Gen.Frequency(
        (2, Gen.Double[0, 1].Select<double, Func<byte[], (byte[], string)>>(at => m => (m[..(int)(m.Length * at)], "cut short"))),
        (2, Gen.Select(Gen.Int[0, 1 << 20], Gen.Byte[1, 255]).Select<(int, byte), Func<byte[], (byte[], string)>>(p => m =>
        {
            if (m.Length == 0)
            {
                return ([p.Item2], "one byte");
            }

            var flipped = (byte[])m.Clone();
            flipped[p.Item1 % m.Length] ^= p.Item2;
            return (flipped, $"byte {p.Item1 % m.Length} flipped");
        })),
        (1, Gen.Select(Gen.Int[0, 1 << 20], Gen.Byte.Array[1, 8]).Select<(int, byte[]), Func<byte[], (byte[], string)>>(p => m =>
        {
            var at = m.Length == 0 ? 0 : p.Item1 % (m.Length + 1);
            return ([.. m[..at], .. p.Item2, .. m[at..]], $"bytes inserted at {at}");
        })),
        (4, Gen.OneOf<(string, byte[])>(
            ("unknown varint field 15", [0x78, 0x01]),
            ("unknown field 536870911", [0xF8, 0xFF, 0xFF, 0xFF, 0x0F, 0x01]),
            ("unknown fixed64 field 100", [0xA1, 0x06, 1, 2, 3, 4, 5, 6, 7, 8]),
            ("field 1 as length-delimited", [0x0A, 0x03, 0x61, 0x62, 0x63]),
            ("field 1 as fixed32", [0x0D, 1, 2, 3, 4]),
            ("field 2 as fixed64", [0x11, 1, 2, 3, 4, 5, 6, 7, 8]),
            ("field 3 as varint", [0x18, 0x05]),
            ("field 10 as varint", [0x50, 0x01]),
            ("field 2 as a string of garbage", [0x12, 0x04, 0xFF, 0xFF, 0xFF, 0xFF]),
            ("truncated varint", [0x08, 0x80, 0x80]),
            ("over-long varint", [0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
            ("length past the end", [0x1A, 0xE8, 0x07, 0x61, 0x62, 0x63]),
            ("length of 4 GiB", [0x1A, 0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
            ("negative length", [0x1A, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]),
            ("group that never ends", [0xA3, 0x01, 0x08, 0x01]),
            ("end of a group never started", [0xA4, 0x01]),
            ("field number 0", [0x00, 0x01]),
            ("wire type 6", [0x0E, 0x01]),
            ("wire type 7", [0x0F]),
            ("invalid UTF-8 in field 3", [0x1A, 0x04, 0xFF, 0xFE, 0xC0, 0xAF]),
            ("invalid UTF-8 in field 2", [0x12, 0x03, 0xED, 0xA0, 0x80]),
            ("groups nested 200 deep", [.. Enumerable.Repeat<byte[]>([0xA3, 0x01], 200).SelectMany(b => b), .. Enumerable.Repeat<byte[]>([0xA4, 0x01], 200).SelectMany(b => b)]),
            ("changes nested 120 deep", Nested(120)))
            .Select<(string, byte[]), Func<byte[], (byte[], string)>>(extra => m => ([.. m, .. extra.Item2], "appended: " + extra.Item1))),
        (1, Gen.Byte.Array[0, 64].Select<byte[], Func<byte[], (byte[], string)>>(random => _ => (random, "random bytes"))));

    private static Gen<Func<string, byte[], FuzzAuth, GrpcCall>> Framing { get; } = Gen.OneOf<(string What, Func<byte[], byte[]> Body, string? Encoding, string ContentType)>(
            ("compressed flag, no grpc-encoding", m => GrpcCalls.Frame(m, 1), null, "application/grpc"),
            ("compressed flag, identity", m => GrpcCalls.Frame(m, 1), "identity", "application/grpc"),
            ("compressed flag, gzip, not gzip", m => GrpcCalls.Frame(m, 1), "gzip", "application/grpc"),
            ("compressed flag, gzip, gzip", m => GrpcCalls.Frame(Gzip(m), 1), "gzip", "application/grpc"),
            ("compressed flag, gzip of garbage", m => GrpcCalls.Frame([.. Gzip(m)[..Math.Max(1, Gzip(m).Length / 2)]], 1), "gzip", "application/grpc"),
            ("unknown encoding", m => GrpcCalls.Frame(m, 1), "x-unknown", "application/grpc"),
            ("flag 2", m => GrpcCalls.Frame(m, 2), null, "application/grpc"),
            ("flag 255", m => GrpcCalls.Frame(m, 255), null, "application/grpc"),
            ("length prefix 3 past the end", m => GrpcCalls.Frame(m, 0, (uint)m.Length + 3), null, "application/grpc"),
            ("length prefix short of the message", m => GrpcCalls.Frame(m, 0, (uint)Math.Max(0, m.Length - 1)), null, "application/grpc"),
            ("two messages", m => [.. GrpcCalls.Frame(m), .. GrpcCalls.Frame(m)], null, "application/grpc"),
            ("empty body", _ => [], null, "application/grpc"),
            ("three bytes", _ => [0, 0, 0], null, "application/grpc"),
            ("length 0xFFFFFFFF", m => GrpcCalls.Frame(m, 0, uint.MaxValue), null, "application/grpc"),
            ("length just over 4 MiB", m => GrpcCalls.Frame(m, 0, (4 * 1024 * 1024) + 1), null, "application/grpc"),
            ("grpc+proto", m => GrpcCalls.Frame(m), null, "application/grpc+proto"),
            ("grpc+json", m => GrpcCalls.Frame(m), null, "application/grpc+json"),
            ("grpc with a charset", m => GrpcCalls.Frame(m), null, "application/grpc; charset=x"),
            ("grpc-web", m => GrpcCalls.Frame(m), null, "application/grpc-web"),
            ("json", m => GrpcCalls.Frame(m), null, "application/json"),
            ("text", m => GrpcCalls.Frame(m), null, "text/plain"))
        .Select<(string What, Func<byte[], byte[]> Body, string? Encoding, string ContentType), Func<string, byte[], FuzzAuth, GrpcCall>>(f => (operation, message, auth) =>
            new GrpcCall(operation, GrpcCalls.Service + operation, auth, f.Encoding is null ? [] : [new("grpc-encoding", f.Encoding)], f.Body(message), f.ContentType, Mutation: f.What));

    private static byte[] Gzip(byte[] data)
    {
        using var output = new MemoryStream();
        using (var gzip = new GZipStream(output, CompressionLevel.Fastest))
        {
            gzip.Write(data);
        }

        return output.ToArray();
    }

    /// <summary>PushChangesRequest.changes holding a change whose modified_at holds ... <paramref name="depth"/> levels down.</summary>
    private static byte[] Nested(int depth)
    {
        byte[] inner = [0x08, 0x01];
        for (var i = 0; i < depth; i++)
        {
            var length = new List<byte>();
            var n = (uint)inner.Length;
            do
            {
                length.Add((byte)((n & 0x7Fu) | (n > 0x7Fu ? 0x80u : 0u)));
                n >>= 7;
            }
            while (n > 0);
            inner = [(byte)(i % 2 == 0 ? 0x52 : 0x12), .. length, .. inner];
        }

        return inner;
    }
}
