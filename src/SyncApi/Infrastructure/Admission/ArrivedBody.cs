using System.Buffers;
using System.IO.Pipelines;
using Microsoft.AspNetCore.Http.Features;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// A request body read whole off the connection into pooled memory of the service's own, each chunk
/// held against the device's share and the instance's budget (<see cref="DeviceLoads"/>) as it is
/// rented, and handed to the endpoint in place of the connection's body: <c>Request.Body</c> and
/// <c>Request.BodyReader</c> (which Grpc.AspNetCore reads) both read it. Disposing it gives the
/// memory back.
/// </summary>
internal sealed class ArrivedBody(DeviceLoads loads, string device) : IDisposable
{
    /// <summary>The size of every chunk after the first; the first fits a body whose length is announced and small.</summary>
    internal const int ChunkBytes = 64 * 1024;

    private readonly List<byte[]> _chunks = [];
    private long _held;
    private long _length;
    private int _filled;

    public enum Outcome
    {
        Arrived,
        TooLarge,
        OverDeviceShare,
        OverInstanceBudget,
    }

    public long Length => _length;

    /// <summary>Reads the body to its end, or until it passes <paramref name="limit"/> bytes or cannot be held.</summary>
    public async Task<Outcome> ReadAsync(PipeReader body, long? announced, long limit, CancellationToken cancellationToken)
    {
        while (true)
        {
            var read = await body.ReadAsync(cancellationToken);
            var buffer = read.Buffer;
            if (_length + buffer.Length > limit)
            {
                body.AdvanceTo(buffer.End);
                return Outcome.TooLarge;
            }

            foreach (var segment in buffer)
            {
                var refusal = Append(segment.Span, announced);
                if (refusal != Outcome.Arrived)
                {
                    body.AdvanceTo(buffer.End);
                    return refusal;
                }
            }

            body.AdvanceTo(buffer.End);
            if (read.IsCompleted || read.IsCanceled)
            {
                return Outcome.Arrived;
            }
        }
    }

    /// <summary>Puts the arrived body in place of the connection's for the rest of the pipeline; returns what to restore.</summary>
    public Restore Install(HttpContext context)
    {
        var restore = new Restore(context.Features.Get<IRequestBodyPipeFeature>(), context.Request.Body);
        var reader = PipeReader.Create(Sequence());
        context.Features.Set<IRequestBodyPipeFeature>(new BodyPipe(reader));
        context.Request.Body = reader.AsStream(leaveOpen: true);
        return restore;
    }

    public void Dispose()
    {
        foreach (var chunk in _chunks)
        {
            ArrayPool<byte>.Shared.Return(chunk);
        }

        _chunks.Clear();
        loads.ReleaseBody(device, _held);
        _held = 0;
    }

    private Outcome Append(ReadOnlySpan<byte> bytes, long? announced)
    {
        while (!bytes.IsEmpty)
        {
            if (_chunks.Count == 0 || _filled == _chunks[^1].Length)
            {
                var size = _chunks.Count == 0 && announced is > 0 and < ChunkBytes ? (int)announced.Value : ChunkBytes;
                var chunk = ArrayPool<byte>.Shared.Rent(size);
                switch (loads.TryHoldBody(device, chunk.Length))
                {
                    case DeviceLoads.BodyRefusal.Device:
                        ArrayPool<byte>.Shared.Return(chunk);
                        return Outcome.OverDeviceShare;
                    case DeviceLoads.BodyRefusal.Instance:
                        ArrayPool<byte>.Shared.Return(chunk);
                        return Outcome.OverInstanceBudget;
                }

                _held += chunk.Length;
                _chunks.Add(chunk);
                _filled = 0;
            }

            var last = _chunks[^1];
            var count = Math.Min(bytes.Length, last.Length - _filled);
            bytes[..count].CopyTo(last.AsSpan(_filled));
            _filled += count;
            _length += count;
            bytes = bytes[count..];
        }

        return Outcome.Arrived;
    }

    private ReadOnlySequence<byte> Sequence()
    {
        if (_chunks.Count == 0)
        {
            return ReadOnlySequence<byte>.Empty;
        }

        if (_chunks.Count == 1)
        {
            return new ReadOnlySequence<byte>(_chunks[0], 0, _filled);
        }

        var first = new Chunk(_chunks[0]);
        var last = first;
        for (var i = 1; i < _chunks.Count; i++)
        {
            last = last.Append(i == _chunks.Count - 1 ? _chunks[i].AsMemory(0, _filled) : _chunks[i]);
        }

        return new ReadOnlySequence<byte>(first, 0, last, _filled);
    }

    /// <summary>The connection's body features, put back once the request is done.</summary>
    public readonly record struct Restore(IRequestBodyPipeFeature? Pipe, Stream Body)
    {
        public void To(HttpContext context)
        {
            context.Features.Set(Pipe);
            context.Request.Body = Body;
        }
    }

    private sealed class BodyPipe(PipeReader reader) : IRequestBodyPipeFeature
    {
        public PipeReader Reader { get; } = reader;
    }

    private sealed class Chunk : ReadOnlySequenceSegment<byte>
    {
        public Chunk(ReadOnlyMemory<byte> memory) => Memory = memory;

        public Chunk Append(ReadOnlyMemory<byte> memory)
        {
            var next = new Chunk(memory) { RunningIndex = RunningIndex + Memory.Length };
            Next = next;
            return next;
        }
    }
}
