using System.Buffers.Binary;
using System.Net.Sockets;
using System.Text;

namespace Kobo.Sync.SyncApi.Tests.Support.Http2;

/// <summary>HTTP/2 frame types and error codes (RFC 9113, sections 6 and 7) that the abuse tests send or read.</summary>
public static class Http2Frames
{
    public const byte Data = 0x0, Headers = 0x1, RstStream = 0x3, Settings = 0x4, Ping = 0x6, GoAway = 0x7, WindowUpdate = 0x8, Continuation = 0x9;
    public const byte EndStream = 0x1, Ack = 0x1, EndHeaders = 0x4;
    public const uint Cancel = 0x8, EnhanceYourCalm = 0xb;
}

/// <summary>One frame as read: type, flags, stream and payload.</summary>
public readonly record struct Http2Frame(byte Type, byte Flags, int Stream, byte[] Payload)
{
    /// <summary>The error code of a GOAWAY (after the last stream id) or a RST_STREAM.</summary>
    public uint ErrorCode => Type switch
    {
        Http2Frames.GoAway => BinaryPrimitives.ReadUInt32BigEndian(Payload.AsSpan(4)),
        Http2Frames.RstStream => BinaryPrimitives.ReadUInt32BigEndian(Payload),
        _ => 0,
    };
}

/// <summary>
/// A bare HTTP/2 client connection over cleartext with prior knowledge, for what a real client never
/// sends: the preface and SETTINGS, raw frames of any type, and header blocks in HPACK's literal
/// without indexing (new name) form, no Huffman; or any bytes as a header block. Loopback only.
/// </summary>
public sealed class RawHttp2Connection : IAsyncDisposable
{
    private static readonly byte[] Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"u8.ToArray();
    private readonly TcpClient _tcp;
    private readonly NetworkStream _stream;
    private readonly SemaphoreSlim _writing = new(1, 1);

    private RawHttp2Connection(TcpClient tcp)
    {
        _tcp = tcp;
        _stream = tcp.GetStream();
    }

    public static async Task<RawHttp2Connection> OpenAsync(Uri address, CancellationToken cancellationToken)
    {
        var tcp = new TcpClient { NoDelay = true };
        await tcp.ConnectAsync(address.Host, address.Port, cancellationToken);
        var connection = new RawHttp2Connection(tcp);
        await connection._stream.WriteAsync(Preface, cancellationToken);
        await connection.WriteFrameAsync(Http2Frames.Settings, 0, 0, Array.Empty<byte>(), cancellationToken);
        return connection;
    }

    public async Task WriteFrameAsync(byte type, byte flags, int stream, ReadOnlyMemory<byte> payload, CancellationToken cancellationToken)
    {
        var frame = new byte[9 + payload.Length];
        frame[0] = (byte)(payload.Length >> 16);
        frame[1] = (byte)(payload.Length >> 8);
        frame[2] = (byte)payload.Length;
        frame[3] = type;
        frame[4] = flags;
        BinaryPrimitives.WriteInt32BigEndian(frame.AsSpan(5), stream & int.MaxValue);
        payload.CopyTo(frame.AsMemory(9));
        await _writing.WaitAsync(cancellationToken);
        try
        {
            await _stream.WriteAsync(frame, cancellationToken);
        }
        finally
        {
            _writing.Release();
        }
    }

    public Task ResetAsync(int stream, uint code, CancellationToken cancellationToken)
    {
        var payload = new byte[4];
        BinaryPrimitives.WriteUInt32BigEndian(payload, code);
        return WriteFrameAsync(Http2Frames.RstStream, 0, stream, payload, cancellationToken);
    }

    /// <summary>The next frame, or null once the server has closed the connection.</summary>
    public async Task<Http2Frame?> ReadFrameAsync(CancellationToken cancellationToken)
    {
        var head = new byte[9];
        if (!await ReadExactlyOrEndAsync(head, cancellationToken))
        {
            return null;
        }

        var payload = new byte[(head[0] << 16) | (head[1] << 8) | head[2]];
        if (!await ReadExactlyOrEndAsync(payload, cancellationToken))
        {
            return null;
        }

        var frame = new Http2Frame(head[3], head[4], BinaryPrimitives.ReadInt32BigEndian(head.AsSpan(5)) & int.MaxValue, payload);
        if (frame.Type == Http2Frames.Settings && (frame.Flags & Http2Frames.Ack) == 0)
        {
            try
            {
                await WriteFrameAsync(Http2Frames.Settings, Http2Frames.Ack, 0, Array.Empty<byte>(), cancellationToken);
            }
            catch (IOException)
            {
                // The server has already closed the connection: the frame read is its last.
            }
        }

        return frame;
    }

    /// <summary>A header block: each pair as a literal without indexing with a new name (RFC 7541, 6.2.2).</summary>
    public static byte[] HeaderBlock(IEnumerable<KeyValuePair<string, string>> headers)
    {
        var block = new List<byte>();
        foreach (var (name, value) in headers)
        {
            block.Add(0x00);
            AddString(block, name);
            AddString(block, value);
        }

        return [.. block];
    }

    /// <summary>The pseudo-headers and headers of a gRPC call to <paramref name="path"/> with <paramref name="token"/>.</summary>
    public static List<KeyValuePair<string, string>> GrpcRequest(Uri address, string path, string? token) =>
    [
        new(":method", "POST"), new(":scheme", "http"), new(":path", path), new(":authority", $"{address.Host}:{address.Port}"),
        new("content-type", "application/grpc"), new("te", "trailers"), .. token is null ? [] : new[] { new KeyValuePair<string, string>("authorization", "Bearer " + token) },
    ];

    /// <summary>An HPACK integer with an <paramref name="prefixBits"/>-bit prefix (RFC 7541, 5.1), first byte's high bits in <paramref name="mask"/>.</summary>
    public static void AddInteger(List<byte> block, int value, int prefixBits, byte mask)
    {
        var max = (1 << prefixBits) - 1;
        if (value < max)
        {
            block.Add((byte)(mask | value));
            return;
        }

        block.Add((byte)(mask | max));
        value -= max;
        while (value >= 128)
        {
            block.Add((byte)((value % 128) + 128));
            value /= 128;
        }

        block.Add((byte)value);
    }

    public async ValueTask DisposeAsync()
    {
        await _stream.DisposeAsync();
        _tcp.Dispose();
        _writing.Dispose();
    }

    private static void AddString(List<byte> block, string text)
    {
        var bytes = Encoding.ASCII.GetBytes(text);
        AddInteger(block, bytes.Length, 7, 0x00);
        block.AddRange(bytes);
    }

    private async Task<bool> ReadExactlyOrEndAsync(byte[] buffer, CancellationToken cancellationToken)
    {
        try
        {
            var read = 0;
            while (read < buffer.Length)
            {
                var n = await _stream.ReadAsync(buffer.AsMemory(read), cancellationToken);
                if (n == 0)
                {
                    return false;
                }

                read += n;
            }

            return true;
        }
        catch (IOException)
        {
            // Reset by the server: as closed.
            return false;
        }
    }
}
