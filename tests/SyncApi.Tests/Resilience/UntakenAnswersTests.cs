using System.Diagnostics;
using System.Net.Sockets;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Kobo.Sync.SyncApi.Tests.Support.Http2;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.TricklingCalls;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// An answer waits for its device for a bounded time (<c>Admission:AnswerWriteGraceMs</c> plus its size
/// at <c>Admission:AnswerMinBytesPerSecond</c>, here about 8 s for a 7 MB pull), however little faster
/// than Kestrel's minimum rate (240 B/s) the device takes it: a gRPC caller that opens its flow-control
/// window a kibibyte at a time gets its stream reset, a REST caller that reads a kibibyte at a time loses
/// its connection, and the answer's memory is given back, while other devices are served meanwhile.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class UntakenAnswersTests(UntakenAnswersTests.ShortAnswerWait service, ITestOutputHelper output) : IClassFixture<UntakenAnswersTests.ShortAnswerWait>
{
    private const long Reader = 4_200_002;

    // Far more than the 8 s an answer may wait here, far less than the minutes it could wait before.
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(45);

    /// <summary>The whole service on the shared demo database; answers wait 1 s plus 1 s a MiB.</summary>
    public sealed class ShortAnswerWait : IAsyncLifetime, IDisposable
    {
        public SyncGrpcTestHost Host { get; } = new(SharedDemoDatabase.ConnectionString, settings: new Dictionary<string, string?>
        {
            ["Admission:AnswerWriteGraceMs"] = "1000",
            ["Admission:AnswerMinBytesPerSecond"] = "1048576",
            // Pages of 8 MiB rather than 1: the 7 MB answer must not fit the connection's socket buffers,
            // or it would leave at once and never wait on the device.
            ["Paging:MaxPageBytes"] = "8388608",
        });

        public Task InitializeAsync() => SlowReaders.SeedAsync(Host, Reader);

        public Task DisposeAsync() => Task.CompletedTask;

        public void Dispose() => Host.Dispose();
    }

    [Fact]
    public async Task AGrpcCallerThatBarelyOpensItsWindowHasItsStreamResetAndTheAnswerReleasedWhileDevicesAreServed()
    {
        await WarmAsync(service.Host);
        using var stop = new CancellationTokenSource(Bound + TimeSpan.FromSeconds(15));
        await using var connection = await SlowReaders.GrpcPullNeverReadAsync(service.Host.GrpcAddress, Reader, "tiny-window", zeroWindow: true, stop.Token);
        var clock = Stopwatch.StartNew();
        using var ending = CancellationTokenSource.CreateLinkedTokenSource(stop.Token);
        var ended = EndOfStreamAsync(connection, ending.Token);
        var opening = OpenWindowSlowlyAsync(connection, ended, ending.Token);

        var devices = await DevicesMeanwhileAsync(service.Host);
        var end = await ended;
        var elapsed = clock.Elapsed;
        await ending.CancelAsync();
        await opening;
        output.WriteLine($"stream 1 ended after {elapsed.TotalSeconds:F1} s with {end}");

        AssertServedAsUsual(devices, output);
        Assert.True(elapsed < Bound, $"the answer waited {elapsed.TotalSeconds:F0} s on a window opened 2 KiB a second");
        Assert.True(end is { Type: Http2Frames.RstStream } or null, $"stream 1 ended with {end}");
        Assert.True(await SlowReadersTests.WaitForAsync(async () => await SlowReaders.AnswerBytesHeldAsync(service.Host) == 0, TimeSpan.FromSeconds(15)),
            "the answer's memory was not given back");
    }

    [Fact]
    public async Task ARestCallerThatBarelyReadsLosesItsConnectionAndTheAnswerIsReleased()
    {
        await WarmAsync(service.Host);
        using var socket = await SlowReaders.RestPullNeverReadAsync(service.Host.RestAddress, Reader, "barely-reads");
        var clock = Stopwatch.StartNew();
        var (received, cut) = await ReadSlowlyAsync(socket, Bound);
        var elapsed = clock.Elapsed;
        output.WriteLine($"after {elapsed.TotalSeconds:F1} s: {received} bytes received, connection {(cut ? "cut" : "still open")}");

        Assert.True(cut, $"the connection was still open after {elapsed.TotalSeconds:F0} s, {received} bytes taken at 2 KiB a second");
        Assert.True(received < SlowReaders.AnswerBytesAtLeast, $"{received} bytes received: the answer was not cut off");
        Assert.True(await SlowReadersTests.WaitForAsync(async () => await SlowReaders.AnswerBytesHeldAsync(service.Host) == 0, TimeSpan.FromSeconds(15)),
            "the answer's memory was not given back");
    }

    /// <summary>A kibibyte more of window for the connection and stream 1 every half second (above Kestrel's minimum rate), until the stream ends.</summary>
    private static async Task OpenWindowSlowlyAsync(RawHttp2Connection connection, Task ended, CancellationToken cancellationToken)
    {
        var increment = new byte[4];
        System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(increment, 1024);
        try
        {
            while (!ended.IsCompleted)
            {
                await Task.Delay(TimeSpan.FromMilliseconds(500), cancellationToken);
                await connection.WriteFrameAsync(Http2Frames.WindowUpdate, 0, 0, increment, cancellationToken);
                await connection.WriteFrameAsync(Http2Frames.WindowUpdate, 0, 1, increment, cancellationToken);
            }
        }
        catch (Exception exception) when (exception is OperationCanceledException or IOException)
        {
            // The test is over, or the service closed the connection.
        }
    }

    /// <summary>Reads a kibibyte every half second until the service cuts the connection or <paramref name="bound"/> passes.</summary>
    private static async Task<(long Received, bool Cut)> ReadSlowlyAsync(Socket socket, TimeSpan bound)
    {
        var buffer = new byte[1024];
        long total = 0;
        var clock = Stopwatch.StartNew();
        try
        {
            while (clock.Elapsed < bound)
            {
                using var wait = new CancellationTokenSource(TimeSpan.FromSeconds(10));
                var read = await socket.ReceiveAsync(buffer, SocketFlags.None, wait.Token);
                if (read == 0)
                {
                    return (total, true);
                }

                total += read;
                await Task.Delay(TimeSpan.FromMilliseconds(500));
            }
        }
        catch (SocketException)
        {
            return (total, true);
        }

        return (total, false);
    }

    /// <summary>
    /// The frame that ends stream 1 (RST_STREAM, or its trailers), or null when the connection closed first;
    /// a frame of type 0xFF when the test's time ran out with the stream still open.
    /// </summary>
    private static async Task<Http2Frame?> EndOfStreamAsync(RawHttp2Connection connection, CancellationToken cancellationToken)
    {
        while (!cancellationToken.IsCancellationRequested)
        {
            Http2Frame? frame;
            try
            {
                frame = await connection.ReadFrameAsync(cancellationToken);
            }
            catch (OperationCanceledException)
            {
                break;
            }

            if (frame is null or { Type: Http2Frames.GoAway })
            {
                return frame;
            }

            if (frame.Value.Stream == 1 && (frame.Value.Type == Http2Frames.RstStream || (frame.Value.Flags & Http2Frames.EndStream) != 0))
            {
                return frame;
            }
        }

        return new Http2Frame(0xFF, 0, 1, []);
    }
}
