using System.Buffers.Text;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Kobo.Sync.SyncApi.Tests.Performance;

/// <summary>
/// One keep-alive HTTP/1.1 connection that sends request bytes built beforehand and reads each answer
/// into one reused buffer, on blocking socket calls: after construction a request allocates nothing in
/// this process, so what the process allocates meanwhile is the service's own. It understands just
/// enough of a response to find its end: the status line, <c>Content-Length</c> and chunked bodies
/// (de-chunked in place, so <see cref="Body"/> is contiguous).
/// </summary>
internal sealed class RawHttpConnection : IDisposable
{
    private static ReadOnlySpan<byte> HeaderEnd => "\r\n\r\n"u8;

    private static ReadOnlySpan<byte> CrLf => "\r\n"u8;

    private readonly Socket _socket;
    private readonly byte[] _buffer = new byte[1024 * 1024];
    private int _bodyStart;
    private int _bodyLength;

    public RawHttpConnection(Uri address)
    {
        _socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        _socket.ReceiveTimeout = 30_000;
        _socket.SendTimeout = 30_000;
        _socket.Connect(new IPEndPoint(IPAddress.Parse(address.Host), address.Port));
    }

    /// <summary>The last response's body (de-chunked), valid until the next request.</summary>
    public ReadOnlySpan<byte> Body => _buffer.AsSpan(_bodyStart, _bodyLength);

    /// <summary>Sends one request and reads its whole response; returns the status code.</summary>
    public int Send(ReadOnlySpan<byte> request)
    {
        while (!request.IsEmpty)
        {
            request = request[_socket.Send(request)..];
        }

        return ReadResponse();
    }

    private int ReadResponse()
    {
        var filled = 0;
        int headerEnd;
        while ((headerEnd = _buffer.AsSpan(0, filled).IndexOf(HeaderEnd)) < 0)
        {
            filled = Receive(filled);
        }

        var head = _buffer.AsSpan(0, headerEnd);
        // "HTTP/1.1 200 OK"
        if (!Utf8Parser.TryParse(head.Slice(9, 3), out int status, out _))
        {
            throw new InvalidDataException("No status code in the response.");
        }

        _bodyStart = headerEnd + HeaderEnd.Length;
        if (TryHeaderValue(head, "content-length:"u8, out var lengthText))
        {
            if (!Utf8Parser.TryParse(lengthText, out int length, out _))
            {
                throw new InvalidDataException("A Content-Length that is not a number.");
            }

            while (filled < _bodyStart + length)
            {
                filled = Receive(filled);
            }

            _bodyLength = length;
        }
        else if (TryHeaderValue(head, "transfer-encoding:"u8, out var encoding) && encoding.SequenceEqual("chunked"u8))
        {
            ReadChunks(filled);
        }
        else
        {
            _bodyLength = 0;
        }

        return status;
    }

    /// <summary>Reads chunks until the last one, moving each chunk's data down to the end of the body so far.</summary>
    private void ReadChunks(int filled)
    {
        var write = _bodyStart;
        var read = _bodyStart;
        while (true)
        {
            int lineEnd;
            while ((lineEnd = _buffer.AsSpan(read, filled - read).IndexOf(CrLf)) < 0)
            {
                filled = Receive(filled);
            }

            var sizeText = _buffer.AsSpan(read, lineEnd);
            var extension = sizeText.IndexOf((byte)';');
            if (!Utf8Parser.TryParse(extension < 0 ? sizeText : sizeText[..extension], out int size, out _, 'x'))
            {
                throw new InvalidDataException("A chunk size that is not hexadecimal.");
            }

            read += lineEnd + CrLf.Length;
            // The chunk's data and its CRLF; the last chunk (size 0) is followed by the CRLF that ends the trailers.
            while (filled < read + size + CrLf.Length)
            {
                filled = Receive(filled);
            }

            if (size == 0)
            {
                _bodyLength = write - _bodyStart;
                return;
            }

            _buffer.AsSpan(read, size).CopyTo(_buffer.AsSpan(write));
            write += size;
            read += size + CrLf.Length;
        }
    }

    private int Receive(int filled)
    {
        if (filled == _buffer.Length)
        {
            throw new InvalidDataException($"A response larger than {_buffer.Length} bytes.");
        }

        var received = _socket.Receive(_buffer.AsSpan(filled));
        if (received == 0)
        {
            throw new IOException("The service closed the connection.");
        }

        return filled + received;
    }

    /// <summary>The trimmed value of header <paramref name="lowerCaseName"/> (given with its colon).</summary>
    private static bool TryHeaderValue(ReadOnlySpan<byte> head, ReadOnlySpan<byte> lowerCaseName, out ReadOnlySpan<byte> value)
    {
        foreach (var range in head.Split(CrLf))
        {
            var line = head[range];
            if (line.Length >= lowerCaseName.Length && Ascii.EqualsIgnoreCase(line[..lowerCaseName.Length], lowerCaseName))
            {
                value = line[lowerCaseName.Length..].Trim((byte)' ');
                return true;
            }
        }

        value = default;
        return false;
    }

    public void Dispose() => _socket.Dispose();
}
