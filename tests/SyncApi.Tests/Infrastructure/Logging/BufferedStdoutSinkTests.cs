using System.Text;
using Kobo.Sync.SyncApi.Infrastructure.Logging;
using Serilog.Events;
using Serilog.Formatting.Json;
using Serilog.Parsing;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Logging;

[Trait("Category", "Fast")]
public sealed class BufferedStdoutSinkTests
{
    [Fact]
    public void EveryEventIsWrittenAsOneJsonLineByTheTimeTheSinkIsDisposed()
    {
        var output = new KeptOpenStream();
        var sink = new BufferedStdoutSink(new JsonFormatter(), output);

        for (var i = 0; i < 5_000; i++)
        {
            sink.Emit(Event(i));
        }

        sink.Dispose();

        var lines = Encoding.UTF8.GetString(output.ToArray()).Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(5_000, lines.Length);
        Assert.Contains("\"Number\":4999", lines[^1], StringComparison.Ordinal);
    }

    [Fact]
    public async Task ALineReachesTheOutputWithinTheFlushIntervalWithoutMoreEvents()
    {
        var output = new KeptOpenStream();
        using var sink = new BufferedStdoutSink(new JsonFormatter(), output);

        sink.Emit(Event(1));

        var deadline = DateTime.UtcNow + BufferedStdoutSink.FlushInterval * 25;
        while (output.Length == 0 && DateTime.UtcNow < deadline)
        {
            await Task.Delay(BufferedStdoutSink.FlushInterval / 4);
        }

        Assert.Contains("\"Number\":1", Encoding.UTF8.GetString(output.ToArray()), StringComparison.Ordinal);
    }

    [Fact]
    public void EventsAfterDisposalAreIgnoredInsteadOfThrowing()
    {
        var sink = new BufferedStdoutSink(new JsonFormatter(), new KeptOpenStream());
        sink.Dispose();

        sink.Emit(Event(1));
        sink.Flush();
    }

    [Fact]
    public async Task WithStdoutBlockedTheQueueStaysBoundedAndTheDropsAreReportedOnceItMovesAgain()
    {
        var output = new BlockedStream();
        var sink = new BufferedStdoutSink(new JsonFormatter(), output, capacity: 10);
        sink.Emit(Event(0));
        Assert.True(output.Entered.Wait(BufferedStdoutSink.FlushInterval * 25), "the writer never wrote");

        for (var i = 1; i <= 50; i++)
        {
            sink.Emit(Event(i)); // returns at once: the request never waits on stdout
        }

        Assert.Equal(40, sink.Dropped);
        output.Release.Set();
        await Task.Run(sink.Dispose);

        var lines = Encoding.UTF8.GetString(output.ToArray()).Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(12, lines.Length); // the first event, the 10 queued, and the warning
        Assert.Contains("\"Number\":10", lines[^2], StringComparison.Ordinal);
        Assert.Contains("\"DroppedEvents\":40", lines[^1], StringComparison.Ordinal);
        Assert.Contains("\"Level\":\"Warning\"", lines[^1], StringComparison.Ordinal);
    }

    [Fact]
    public async Task ShutdownDoesNotWaitForeverOnAStdoutNobodyReads()
    {
        var output = new BlockedStream();
        var sink = new BufferedStdoutSink(new JsonFormatter(), output, shutdownWait: TimeSpan.FromMilliseconds(200));
        sink.Emit(Event(0));
        Assert.True(output.Entered.Wait(BufferedStdoutSink.FlushInterval * 25), "the writer never wrote");

        var disposal = Task.Run(sink.Dispose);

        await disposal.WaitAsync(TimeSpan.FromSeconds(10));
        output.Release.Set();
    }

    private static LogEvent Event(int number) => new(
        DateTimeOffset.UtcNow,
        LogEventLevel.Information,
        exception: null,
        new MessageTemplateParser().Parse("request {Number}"),
        [new LogEventProperty("Number", new ScalarValue(number))]);

    /// <summary>Stdout with no reader: the first write blocks until <see cref="Release"/> is set.</summary>
    private sealed class BlockedStream : MemoryStream
    {
        public ManualResetEventSlim Entered { get; } = new();

        public ManualResetEventSlim Release { get; } = new();

        public override void Write(byte[] buffer, int offset, int count)
        {
            WaitForRelease();
            base.Write(buffer, offset, count);
        }

        public override void Write(ReadOnlySpan<byte> buffer)
        {
            WaitForRelease();
            base.Write(buffer);
        }

        private void WaitForRelease()
        {
            Entered.Set();
            Release.Wait(TimeSpan.FromSeconds(30));
        }

        protected override void Dispose(bool disposing)
        {
        }
    }

    /// <summary>A memory stream that can still be read after the writer over it closed it.</summary>
    private sealed class KeptOpenStream : MemoryStream
    {
        private readonly Lock _gate = new();

        public override long Length
        {
            get
            {
                lock (_gate)
                {
                    return base.Length;
                }
            }
        }

        public override void Write(byte[] buffer, int offset, int count)
        {
            lock (_gate)
            {
                base.Write(buffer, offset, count);
            }
        }

        public override void Write(ReadOnlySpan<byte> buffer)
        {
            lock (_gate)
            {
                base.Write(buffer);
            }
        }

        protected override void Dispose(bool disposing)
        {
        }
    }
}
