using System.Buffers;
using System.Buffers.Binary;
using System.IO.Pipelines;
using Google.Protobuf;

namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>
/// Length-prefixed messages (PROTOCOL-HTTP2.md "Length-Prefixed-Message") over a pipe. DATA frame
/// boundaries mean nothing here: a message may arrive in many reads, or several in one.
/// </summary>
public static class MessageFraming
{
    /// <summary>
    /// The next message's bytes, or null when the stream ended cleanly between messages. Compressed
    /// messages are refused: this binding only ever advertises the identity encoding.
    /// </summary>
    /// <param name="messageEncoding">The stream's <c>grpc-encoding</c> header, if any.</param>
    public static async ValueTask<byte[]?> ReadMessageAsync(
        PipeReader reader, int maxMessageSize, string? messageEncoding, CancellationToken cancellationToken)
    {
        while (true)
        {
            var result = await reader.ReadAsync(cancellationToken);
            var buffer = result.Buffer;
            if (buffer.Length >= GrpcProtocol.FrameHeaderSize)
            {
                var (compressed, length) = ReadHeader(buffer);
                var failure = CheckHeader(compressed, length, maxMessageSize, messageEncoding);
                if (failure is not null)
                {
                    reader.AdvanceTo(buffer.Start);
                    throw failure;
                }

                var frameLength = GrpcProtocol.FrameHeaderSize + (long)length;
                if (buffer.Length >= frameLength)
                {
                    var message = buffer.Slice(GrpcProtocol.FrameHeaderSize, length).ToArray();
                    reader.AdvanceTo(buffer.GetPosition(frameLength));
                    return message;
                }
            }

            if (result.IsCompleted)
            {
                var leftover = buffer.Length;
                reader.AdvanceTo(buffer.End);
                return leftover == 0
                    ? null
                    : throw new RpcException(StatusCode.Internal, "The stream ended inside a length-prefixed message.");
            }

            if (result.IsCanceled)
            {
                reader.AdvanceTo(buffer.Start);
                throw new OperationCanceledException(cancellationToken);
            }

            reader.AdvanceTo(buffer.Start, buffer.End);
        }
    }

    /// <summary>Writes one uncompressed message with its 5-byte prefix; the caller flushes.</summary>
    public static void WriteMessage(IBufferWriter<byte> writer, IMessage message)
    {
        var size = message.CalculateSize();
        var header = writer.GetSpan(GrpcProtocol.FrameHeaderSize);
        header[0] = 0;
        BinaryPrimitives.WriteUInt32BigEndian(header[1..], (uint)size);
        writer.Advance(GrpcProtocol.FrameHeaderSize);
        message.WriteTo(writer);
    }

    /// <summary>One uncompressed message with its prefix, as a byte array (for request bodies).</summary>
    public static byte[] ToFrame(IMessage message)
    {
        var writer = new ArrayBufferWriter<byte>(GrpcProtocol.FrameHeaderSize + message.CalculateSize());
        WriteMessage(writer, message);
        return writer.WrittenSpan.ToArray();
    }

    private static (byte Compressed, uint Length) ReadHeader(ReadOnlySequence<byte> buffer)
    {
        Span<byte> header = stackalloc byte[GrpcProtocol.FrameHeaderSize];
        buffer.Slice(0, GrpcProtocol.FrameHeaderSize).CopyTo(header);
        return (header[0], BinaryPrimitives.ReadUInt32BigEndian(header[1..]));
    }

    private static RpcException? CheckHeader(byte compressed, uint length, int maxMessageSize, string? messageEncoding)
    {
        if (compressed > 1)
        {
            return new RpcException(StatusCode.Internal, $"Invalid compressed flag {compressed} in a message prefix.");
        }

        if (compressed == 1)
        {
            // The spec: with no grpc-encoding header the flag must be 0, so that is a protocol violation;
            // an encoding we do not implement is UNIMPLEMENTED (statuscodes.md).
            return string.IsNullOrEmpty(messageEncoding) || messageEncoding == GrpcProtocol.IdentityEncoding
                ? new RpcException(StatusCode.Internal, "A message was flagged compressed without a grpc-encoding.")
                : new RpcException(StatusCode.Unimplemented, $"Compressed messages are not supported (grpc-encoding '{messageEncoding}'); send identity.");
        }

        return length > maxMessageSize
            ? new RpcException(StatusCode.ResourceExhausted, $"Received message larger than max ({length} vs. {maxMessageSize}).")
            : null;
    }
}
