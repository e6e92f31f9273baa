using System.Buffers;
using System.Collections.Concurrent;
using System.IO.Pipelines;
using Microsoft.AspNetCore.Http.Features;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// A response body written into pooled memory instead of the connection, standing in for the
/// connection's <see cref="IHttpResponseBodyFeature"/> and <see cref="IHttpResponseFeature"/> while the
/// endpoint runs: the answer counts as started once a byte or a flush is written, as the connection's
/// would (Grpc.AspNetCore then sends its status as trailers, not Trailers-Only), but nothing leaves
/// until <see cref="AnswerBufferingMiddleware"/> sends it, after the request's admission slot is given
/// back. Status, headers, trailers and the completion callbacks stay the connection's own.
/// <para>
/// Answers are reused (<see cref="Rent"/>, <see cref="Release"/>): a pipe, its writer and its segments
/// made for every request were most of the bytes this buffering adds to a read.
/// </para>
/// </summary>
internal sealed class BufferedAnswer : IHttpResponseBodyFeature, IHttpResponseFeature
{
    /// <summary>Answers kept for reuse: enough for the requests one instance answers at once.</summary>
    internal const int MaxSpare = 256;

    private static readonly PipeOptions Options = new(pauseWriterThreshold: 0, resumeWriterThreshold: 0, useSynchronizationContext: false);
    private static readonly ConcurrentQueue<BufferedAnswer> Spare = new();
    private static int s_spareCount;

    private readonly Pipe _pipe = new(Options);
    private readonly CountingWriter _writer;
    private IHttpResponseFeature _response = null!;
    private Stream? _stream;
    private bool _started;
    private bool _rented;

    private BufferedAnswer()
    {
        _writer = new CountingWriter(this, _pipe.Writer);
    }

    /// <summary>
    /// An answer for one request, standing in for the connection's <paramref name="connectionBody"/> and <paramref name="response"/>.
    /// </summary>
    public static BufferedAnswer Rent(IHttpResponseBodyFeature connectionBody, IHttpResponseFeature response)
    {
        BufferedAnswer answer;
        if (Spare.TryDequeue(out var spare))
        {
            Interlocked.Decrement(ref s_spareCount);
            answer = spare;
        }
        else
        {
            answer = new BufferedAnswer();
        }

        answer.ConnectionBody = connectionBody;
        answer._response = response;
        answer._started = false;
        answer.Completed = false;
        answer._rented = true;
        return answer;
    }

    /// <summary>The connection's body, where the answer goes in the end.</summary>
    public IHttpResponseBodyFeature ConnectionBody { get; private set; } = null!;

    /// <summary>The endpoint started its answer (a byte, a flush or <c>StartAsync</c>).</summary>
    public bool Started => _started;

    public Stream Stream => _stream ??= _writer.AsStream(leaveOpen: true);

    public PipeWriter Writer => _writer;

    public int StatusCode { get => _response.StatusCode; set => _response.StatusCode = value; }

    public string? ReasonPhrase { get => _response.ReasonPhrase; set => _response.ReasonPhrase = value; }

    public IHeaderDictionary Headers { get => _response.Headers; set => _response.Headers = value; }

    [Obsolete("Use IHttpResponseBodyFeature.Stream instead.")]
    Stream IHttpResponseFeature.Body { get => Stream; set => throw new NotSupportedException(
        "The response body is buffered; replace IHttpResponseBodyFeature instead."); }

    public bool HasStarted => _started || _response.HasStarted;

    public void OnStarting(Func<object, Task> callback, object state) => _response.OnStarting(callback, state);

    public void OnCompleted(Func<object, Task> callback, object state) => _response.OnCompleted(callback, state);

    public void DisableBuffering()
    {
    }

    public Task StartAsync(CancellationToken cancellationToken = default)
    {
        _started = true;
        return Task.CompletedTask;
    }

    public Task SendFileAsync(string path, long offset, long? count, CancellationToken cancellationToken = default) =>
        SendFileFallback.SendFileAsync(Stream, path, offset, count, cancellationToken);

    /// <summary>
    /// The endpoint ends its answer before it returns (Grpc.AspNetCore does when a call's deadline passes,
    /// then resets the stream): what it wrote goes to the connection now, with the trailers, and the
    /// answer is over. Anything written later is dropped, as the connection would drop it.
    /// </summary>
    public async Task CompleteAsync()
    {
        if (Completed)
        {
            return;
        }

        Completed = true;
        _started = true;
        if (_pipe.Reader.TryRead(out var read))
        {
            foreach (var segment in read.Buffer)
            {
                ConnectionBody.Writer.Write(segment.Span);
            }

            _pipe.Reader.AdvanceTo(read.Buffer.End);
        }

        await ConnectionBody.CompleteAsync();
    }

    /// <summary>The answer went to the connection already (<see cref="CompleteAsync"/>).</summary>
    public bool Completed { get; private set; }

    /// <summary>The whole answer, once the endpoint is done; <see cref="Release"/> gives its memory back.</summary>
    public ReadOnlySequence<byte> Take()
    {
        _pipe.Writer.Complete();
        return !Completed && _pipe.Reader.TryRead(out var read) ? read.Buffer : ReadOnlySequence<byte>.Empty;
    }

    /// <summary>
    /// Gives the answer's memory back and the answer itself up for reuse: nothing of it may be used after
    /// this. A second call does nothing.
    /// </summary>
    public void Release()
    {
        if (!_rented)
        {
            return;
        }

        _rented = false;
        _pipe.Writer.Complete();
        _pipe.Reader.Complete();
        _pipe.Reset();
        ConnectionBody = null!;
        _response = null!;
        if (Interlocked.Increment(ref s_spareCount) <= MaxSpare)
        {
            Spare.Enqueue(this);
        }
        else
        {
            Interlocked.Decrement(ref s_spareCount);
        }
    }

    /// <summary>The pipe's writer, noting that the answer has started on any byte or flush.</summary>
    private sealed class CountingWriter(BufferedAnswer owner, PipeWriter inner) : PipeWriter
    {
        public override bool CanGetUnflushedBytes => inner.CanGetUnflushedBytes;

        public override long UnflushedBytes => inner.UnflushedBytes;

        public override void Advance(int bytes)
        {
            if (bytes > 0)
            {
                owner._started = true;
            }

            inner.Advance(bytes);
        }

        public override Memory<byte> GetMemory(int sizeHint = 0) => inner.GetMemory(sizeHint);

        public override Span<byte> GetSpan(int sizeHint = 0) => inner.GetSpan(sizeHint);

        public override ValueTask<FlushResult> FlushAsync(CancellationToken cancellationToken = default)
        {
            owner._started = true;
            return inner.FlushAsync(cancellationToken);
        }

        public override void CancelPendingFlush() => inner.CancelPendingFlush();

        // The endpoint completing its writer ends its answer, not the buffer: the middleware reads it after.
        public override void Complete(Exception? exception = null) => owner._started = true;
    }
}
