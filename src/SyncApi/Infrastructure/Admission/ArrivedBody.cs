using System.Buffers;
using System.IO.Pipelines;
using Microsoft.AspNetCore.Http.Features;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// A request body read whole off the connection into pooled memory of the service's own, each chunk
/// held against the device's and its user's shares and the instance's budgets (<see cref="DeviceLoads"/>)
/// as it is rented, and handed to the endpoint in place of the connection's body: <c>Request.Body</c> and
/// <c>Request.BodyReader</c> (which Grpc.AspNetCore reads) both read it. A body that brings less than
/// <paramref name="progress"/>'s bytes within one of its windows is cut (<see cref="Outcome.Stalled"/>):
/// what counts is what arrives lately, not the average since the first byte. Disposing it gives the
/// memory back.
/// </summary>
internal sealed class ArrivedBody(DeviceLoads loads, string device, string user, ArrivedBody.Progress progress) : IDisposable
{
    /// <summary>The size of every chunk after the first; the first fits a body whose length is announced and small.</summary>
    internal const int ChunkBytes = 64 * 1024;

    private readonly List<byte[]> _chunks = [];
    private long _held;
    private long _heldInReserve;
    private long _length;
    private int _filled;

    public enum Outcome
    {
        Arrived,
        TooLarge,
        OverDeviceShare,
        OverUserShare,
        OverInstanceBudget,
        Stalled,
    }

    /// <summary>The least a body must bring (<paramref name="MinBytes"/>) within each <paramref name="Window"/>.</summary>
    public readonly record struct Progress(TimeSpan Window, int MinBytes);

    public long Length => _length;

    /// <summary>Reads the body to its end, or until it passes <paramref name="limit"/> bytes or cannot be held.</summary>
    public async Task<Outcome> ReadAsync(PipeReader body, long? announced, long limit, CancellationToken cancellationToken)
    {
        using var window = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        window.CancelAfter(progress.Window);
        long sinceWindow = 0;
        while (true)
        {
            ReadResult read;
            try
            {
                read = await body.ReadAsync(window.Token);
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                return Outcome.Stalled;
            }

            var buffer = read.Buffer;
            if (_length + buffer.Length > limit)
            {
                body.AdvanceTo(buffer.End);
                return Outcome.TooLarge;
            }

            // A body that arrived whole in its first read takes a first chunk of its own size, not 64 KiB.
            long? whole = read.IsCompleted && _length == 0 ? buffer.Length : null;
            foreach (var segment in buffer)
            {
                var refusal = Append(segment.Span, announced, whole);
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

            // A new window only for a body that brought its due in this one: a trickle runs out of time.
            sinceWindow += buffer.Length;
            if (sinceWindow >= progress.MinBytes)
            {
                sinceWindow = 0;
                window.CancelAfter(progress.Window);
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
        loads.ReleaseBody(device, user, _held - _heldInReserve, _heldInReserve);
        _held = 0;
        _heldInReserve = 0;
    }

    /// <param name="whole">The body's whole length when this read holds all of it (a gRPC call's one message), else null.</param>
    private Outcome Append(ReadOnlySpan<byte> bytes, long? announced, long? whole)
    {
        while (!bytes.IsEmpty)
        {
            if (_chunks.Count == 0 || _filled == _chunks[^1].Length)
            {
                var first = _chunks.Count == 0;
                var expected = announced ?? whole ?? 0;
                var size = first && expected is > 0 and < ChunkBytes ? (int)expected : ChunkBytes;
                var chunk = ArrayPool<byte>.Shared.Rent(size);
                var refusal = loads.TryHoldBody(device, user, chunk.Length, first, out var fromReserve);
                if (refusal != DeviceLoads.BodyRefusal.None)
                {
                    ArrayPool<byte>.Shared.Return(chunk);
                    return refusal switch
                    {
                        DeviceLoads.BodyRefusal.Device => Outcome.OverDeviceShare,
                        DeviceLoads.BodyRefusal.User => Outcome.OverUserShare,
                        _ => Outcome.OverInstanceBudget,
                    };
                }

                _held += chunk.Length;
                _heldInReserve += fromReserve ? chunk.Length : 0;
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
