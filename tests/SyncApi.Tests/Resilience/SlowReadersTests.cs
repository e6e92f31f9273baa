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
/// Devices that ask for a large answer and never read it: the answer is produced inside the admission
/// slot and waits on the device's network outside it, so three times what the slots and the queue hold
/// stop nobody else; and an answer not taken in time is dropped with its connection or stream, its
/// memory given back.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class SlowReadersTests(SlowReadersTests.FewSlots service, ITestOutputHelper output) : IClassFixture<SlowReadersTests.FewSlots>
{
    private const int Slots = 4;
    private const int Queue = 4;
    private const long Reader = 4_200_001;

    /// <summary>The whole service on the shared demo database with a small admission capacity, and a user whose full pull is about 7 MB.</summary>
    public sealed class FewSlots : IAsyncLifetime, IDisposable
    {
        public SyncGrpcTestHost Host { get; } = new(SharedDemoDatabase.ConnectionString, settings: new Dictionary<string, string?>
        {
            ["Admission:ConcurrencyLimit"] = Slots.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ["Admission:QueueLimit"] = Queue.ToString(System.Globalization.CultureInfo.InvariantCulture),
        });

        public Task InitializeAsync() => SlowReaders.SeedAsync(Host, Reader);

        public Task DisposeAsync() => Task.CompletedTask;

        public void Dispose() => Host.Dispose();
    }

    [Fact]
    public async Task DevicesThatNeverReadTheirLargeAnswersHoldNoSlotOtherDevicesNeed()
    {
        await WarmAsync(service.Host);
        using var opening = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        var sockets = new List<Socket>();
        var connections = new List<RawHttp2Connection>();
        try
        {
            // Three times what the slots and the queue hold, half over each protocol, each a device of its
            // own, one after the other: each answer starts (its first bytes reach the reader) before the next asks.
            var started = 0;
            for (var i = 0; i < 3 * (Slots + Queue) / 2; i++)
            {
                var socket = await SlowReaders.RestPullNeverReadAsync(service.Host.RestAddress, Reader, $"never-reads-rest-{i}");
                sockets.Add(socket);
                started += await RestAnswerStartedAsync(socket) ? 1 : 0;
                var connection = await SlowReaders.GrpcPullNeverReadAsync(service.Host.GrpcAddress, Reader, $"never-reads-grpc-{i}", zeroWindow: false, opening.Token);
                connections.Add(connection);
                started += await GrpcAnswerStartedAsync(connection) ? 1 : 0;
            }

            output.WriteLine($"{started} of {sockets.Count + connections.Count} answers started; "
                + $"{await SlowReaders.AnswerBytesHeldAsync(service.Host) / 1048576.0:F1} MiB held for readers that never read");

            var devices = await DevicesMeanwhileAsync(service.Host);
            AssertServedAsUsual(devices, output);
            Assert.Equal(sockets.Count + connections.Count, started);
        }
        finally
        {
            foreach (var socket in sockets)
            {
                socket.Dispose();
            }

            foreach (var connection in connections)
            {
                await connection.DisposeAsync();
            }
        }
    }

    /// <summary>The status line of a 200 reached the socket within 10 s (the answer was produced and is being sent).</summary>
    private static async Task<bool> RestAnswerStartedAsync(Socket socket)
    {
        if (!await WaitForAsync(() => Task.FromResult(socket.Available >= 12), TimeSpan.FromSeconds(10)))
        {
            return false;
        }

        var status = new byte[12];
        await socket.ReceiveAsync(status, SocketFlags.None);
        return System.Text.Encoding.ASCII.GetString(status) == "HTTP/1.1 200";
    }

    /// <summary>The answer's HEADERS (not a Trailers-Only refusal) reached the connection within 10 s.</summary>
    private static async Task<bool> GrpcAnswerStartedAsync(RawHttp2Connection connection)
    {
        using var wait = new CancellationTokenSource(TimeSpan.FromSeconds(10));
        try
        {
            while (await connection.ReadFrameAsync(wait.Token) is { } frame)
            {
                if (frame.Stream == 1 && frame.Type == Http2Frames.Headers)
                {
                    return (frame.Flags & Http2Frames.EndStream) == 0;
                }
            }
        }
        catch (OperationCanceledException)
        {
        }

        return false;
    }

    internal static async Task<bool> WaitForAsync(Func<Task<bool>> condition, TimeSpan within)
    {
        var clock = Stopwatch.StartNew();
        while (!await condition())
        {
            if (clock.Elapsed > within)
            {
                return false;
            }

            await Task.Delay(TimeSpan.FromMilliseconds(250));
        }

        return true;
    }
}
