using System.Collections.Concurrent;
using System.Text;
using Serilog.Core;
using Serilog.Events;
using Serilog.Formatting;
using Serilog.Parsing;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// Writes log events to standard output from a writer thread of its own, in batches.
/// <para>
/// <see cref="Emit"/> only queues the event: a request never formats, writes or waits on stdout,
/// and never wakes another thread. The writer thread wakes every <see cref="FlushInterval"/> (or
/// early, when half the queue has filled), formats everything queued into a 64 KiB buffer and
/// writes it with as few system calls as the buffer allows. At one line per request, a write per
/// line and a thread wake-up per line were the largest costs of a one-row read
/// (docs/performance-history.md).
/// </para>
/// <para>
/// A line reaches stdout at most about <see cref="FlushInterval"/> after it was logged, and nothing
/// queued is lost on an orderly shutdown. The queue holds at most <see cref="DefaultCapacity"/>
/// events; beyond that (stdout blocked, or a flood) events are dropped rather than memory or
/// requests, and the next batch says how many with a warning line.
/// </para>
/// </summary>
internal sealed class BufferedStdoutSink : ILogEventSink, IDisposable
{
    public static readonly TimeSpan FlushInterval = TimeSpan.FromMilliseconds(200);

    public const int DefaultCapacity = 10_000;

    private static readonly TimeSpan DefaultShutdownWait = TimeSpan.FromSeconds(5);

    private static readonly MessageTemplate DroppedTemplate =
        new MessageTemplateParser().Parse("{DroppedEvents} log events were dropped: the log queue was full");

    private readonly ITextFormatter _formatter;
    private readonly StreamWriter _writer;
    private readonly ConcurrentQueue<LogEvent> _queue = new();
    private readonly int _capacity;
    private readonly TimeSpan _shutdownWait;
    private readonly AutoResetEvent _wake = new(initialState: false);
    private readonly Thread _writerThread;
    private readonly Lock _gate = new();
    private int _queued;
    private long _dropped;
    private volatile bool _stopping;
    private bool _disposed;

    public BufferedStdoutSink(ITextFormatter formatter)
        : this(formatter, Console.OpenStandardOutput())
    {
    }

    internal BufferedStdoutSink(ITextFormatter formatter, Stream output, int capacity = DefaultCapacity, TimeSpan? shutdownWait = null)
    {
        _formatter = formatter;
        _capacity = capacity;
        _shutdownWait = shutdownWait ?? DefaultShutdownWait;
        _writer = new StreamWriter(output, new UTF8Encoding(encoderShouldEmitUTF8Identifier: false), bufferSize: 64 * 1024)
        {
            AutoFlush = false,
        };
        _writerThread = new Thread(WriteUntilStopped) { IsBackground = true, Name = "log-writer" };
        _writerThread.Start();
    }

    /// <summary>Events dropped because the queue was full, not yet reported in the output.</summary>
    internal long Dropped => Interlocked.Read(ref _dropped);

    public void Emit(LogEvent logEvent)
    {
        if (_stopping)
        {
            return;
        }

        var queued = Interlocked.Increment(ref _queued);
        if (queued > _capacity)
        {
            Interlocked.Decrement(ref _queued);
            Interlocked.Increment(ref _dropped);
            return;
        }

        _queue.Enqueue(logEvent);
        if (queued == _capacity / 2)
        {
            _wake.Set();
        }
    }

    /// <summary>Writes everything queued so far to the output now.</summary>
    public void Flush()
    {
        lock (_gate)
        {
            if (!_disposed)
            {
                WriteQueued();
            }
        }
    }

    public void Dispose()
    {
        _stopping = true;
        _wake.Set();
        _writerThread.Join(_shutdownWait);
        if (!_gate.TryEnter(_shutdownWait))
        {
            // The writer is stuck on a stdout nobody reads: what is queued cannot be written, and
            // shutdown must not wait for it.
            return;
        }

        try
        {
            if (_disposed)
            {
                return;
            }

            WriteQueued();
            _disposed = true;
            _writer.Dispose();
            if (!_writerThread.IsAlive)
            {
                _wake.Dispose();
            }
        }
        finally
        {
            _gate.Exit();
        }
    }

    private void WriteUntilStopped()
    {
        while (!_stopping)
        {
            _wake.WaitOne(FlushInterval);
            Flush();
        }
    }

    private void WriteQueued()
    {
        while (_queue.TryDequeue(out var logEvent))
        {
            Interlocked.Decrement(ref _queued);
            _formatter.Format(logEvent, _writer);
        }

        var dropped = Interlocked.Exchange(ref _dropped, 0);
        if (dropped > 0)
        {
            _formatter.Format(
                new LogEvent(
                    DateTimeOffset.UtcNow, LogEventLevel.Warning, null, DroppedTemplate,
                    [new LogEventProperty("DroppedEvents", new ScalarValue(dropped))]),
                _writer);
        }

        try
        {
            _writer.Flush();
        }
        catch (IOException)
        {
            // stdout closed (the reader went away): nothing to report to, and no request may fail for it.
        }
    }
}
