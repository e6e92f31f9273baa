using System.Text;
using Serilog.Core;
using Serilog.Events;
using Serilog.Formatting;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// Writes formatted events to standard output through a buffer that is flushed every
/// <see cref="FlushInterval"/>, when it fills, and on disposal. The console sink writes (and so
/// makes a system call) once per event: at one line per request that was the largest single cost
/// of a one-row read (docs/performance.md). A line reaches stdout at most
/// <see cref="FlushInterval"/> after it was logged; nothing is lost on an orderly shutdown.
/// Runs behind the async sink, so a request never waits on it.
/// </summary>
internal sealed class BufferedStdoutSink : ILogEventSink, IDisposable
{
    public static readonly TimeSpan FlushInterval = TimeSpan.FromMilliseconds(200);

    private readonly ITextFormatter _formatter;
    private readonly StreamWriter _writer;
    private readonly Timer _flushTimer;
    private readonly Lock _gate = new();
    private bool _disposed;

    public BufferedStdoutSink(ITextFormatter formatter)
        : this(formatter, Console.OpenStandardOutput())
    {
    }

    internal BufferedStdoutSink(ITextFormatter formatter, Stream output)
    {
        _formatter = formatter;
        _writer = new StreamWriter(output, new UTF8Encoding(encoderShouldEmitUTF8Identifier: false), bufferSize: 64 * 1024)
        {
            AutoFlush = false,
        };
        _flushTimer = new Timer(static state => ((BufferedStdoutSink)state!).Flush(), this, FlushInterval, FlushInterval);
    }

    public void Emit(LogEvent logEvent)
    {
        lock (_gate)
        {
            if (!_disposed)
            {
                _formatter.Format(logEvent, _writer);
            }
        }
    }

    public void Flush()
    {
        lock (_gate)
        {
            if (!_disposed)
            {
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
    }

    public void Dispose()
    {
        _flushTimer.Dispose();
        Flush();
        lock (_gate)
        {
            _disposed = true;
            _writer.Dispose();
        }
    }
}
