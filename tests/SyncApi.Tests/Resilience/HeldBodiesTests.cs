using System.Globalization;
using System.Net.Sockets;
using System.Text;
using Kobo.Sync.SyncApi.Infrastructure.Admission;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Microsoft.Extensions.DependencyInjection;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// What bodies that arrive almost whole and then stop can hold: never the small bodies' room (every read
/// and most writes go on being served), never more than their account's share, and never for longer than
/// the progress window once they stop arriving.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class HeldBodiesTests
{
    private const long User = TricklingCalls.User;
    private const int ChunkBytes = 64 * 1024;

    [Fact]
    public async Task ABodyThatStopsArrivingIsCutWithin408AndWhatItHeldIsGivenBack()
    {
        using var host = Host(new() { ["Admission:BodyProgressWindowMs"] = "2000" });
        var loads = host.Services.GetRequiredService<DeviceLoads>();

        // A megabyte at once, then nothing: its average rate is far above any minimum rate for hours.
        using var stalled = await StalledPushAsync(host, "stalling-phone", announced: 2_000_000, sent: 1_000_000);
        var held = await EventuallyAsync(() => loads.BodyBytes >= 1_000_000);
        var answer = await stalled.ReadStatusLineAsync();

        Assert.True(held, "the body was never held while it arrived");
        Assert.Contains(" 408 ", answer, StringComparison.Ordinal);
        Assert.True(await EventuallyAsync(() => loads.BodyBytes == 0), $"{loads.BodyBytes} bytes still held");
    }

    [Fact]
    public async Task ABodyThatTricklesAfterArrivingAlmostWholeIsCutAllTheSame()
    {
        using var host = Host(new() { ["Admission:BodyProgressWindowMs"] = "2000" });

        using var trickling = await StalledPushAsync(host, "trickling-phone", announced: 2_000_000, sent: 1_000_000);
        using var stop = new CancellationTokenSource();
        var trickle = trickling.TrickleAsync(bytesEvery200Ms: 64, stop.Token);
        var answer = await trickling.ReadStatusLineAsync();
        await stop.CancelAsync();
        await trickle;

        Assert.Contains(" 408 ", answer, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AGrpcMessageThatStopsArrivingIsCutWithDeadlineExceededAndWhatItHeldIsGivenBack()
    {
        using var host = Host(new() { ["Admission:BodyProgressWindowMs"] = "2000" });
        var loads = host.Services.GetRequiredService<DeviceLoads>();

        // A message announcing 1,000,000 bytes, of which 500,000 arrive at once and then nothing more.
        using var stop = new CancellationTokenSource();
        using var call = new HttpRequestMessage(HttpMethod.Post, "/kobo.sync.v1.SyncService/PushChanges")
        {
            Version = System.Net.HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new StallingContent(announced: 1_000_000, sent: 500_000, stop.Token),
        };
        call.Content.Headers.ContentType = new("application/grpc");
        call.Headers.TE.ParseAdd("trailers");
        call.Headers.Authorization = new("Bearer", TestTokens.For(User, "stalling-reader"));
        var sending = host.Http.SendAsync(call, HttpCompletionOption.ResponseHeadersRead, TestTimeout.Token);
        var held = await EventuallyAsync(() => loads.BodyBytes >= 500_000);
        using var answer = await sending;
        await stop.CancelAsync();

        Assert.True(held, "the message was never held while it arrived");
        Assert.Equal("4", RawGrpc.Status(answer));
        Assert.True(await EventuallyAsync(() => loads.BodyBytes == 0), $"{loads.BodyBytes} bytes still held");
    }

    [Fact]
    public async Task ReadsAndSmallPushesAreServedWhileStalledLargeBodiesFillTheSharedBudget()
    {
        // The least shared budget there may be (one device's share, 512 chunks of 64 KiB), bodies never cut
        // during the test; four bodies of 128 whole chunks each, stalled, hold all of it.
        using var host = Host(new()
        {
            ["Admission:BodyBytes"] = "33554432",
            ["Admission:PerUserBodyBytes"] = "1073741824",
            ["Admission:BodyProgressWindowMs"] = "600000",
        });
        var stalled = new List<StalledRequest>();
        try
        {
            for (var i = 0; i < 4; i++)
            {
                stalled.Add(await StalledPushAsync(host, $"filler-{i}", announced: 12_000_000, sent: 128 * ChunkBytes));
            }

            Assert.True(await EventuallyAsync(() => host.Services.GetRequiredService<DeviceLoads>().BodyBytes >= 512 * ChunkBytes), "the stalled bodies never filled the budget");
            using var another = await StalledPushAsync(host, "one-more-large", announced: 12_000_000, sent: 9_000_000);
            var refused = await another.ReadStatusLineAsync();

            var grpc = await DeviceRequests.GrpcGetUserAsync(host.Http, User, "reader");
            using var rest = new HttpClient { BaseAddress = host.RestAddress };
            var read = await DeviceRequests.RestGetUserAsync(rest, User, "reader");
            using var push = new HttpRequestMessage(HttpMethod.Post, $"/v1/users/{User}/changes")
            {
                Content = new StringContent("""{"changes":[]}""", Encoding.UTF8, "application/json"),
            };
            push.Headers.Authorization = new("Bearer", TestTokens.For(User, "writer"));
            using var pushed = await rest.SendAsync(push, TestTimeout.Token);

            Assert.Contains(" 503 ", refused, StringComparison.Ordinal);
            Assert.Equal(0, grpc.Status);
            Assert.Equal(200, read.Status);
            Assert.True((int)pushed.StatusCode is 200 or 400, $"a small push answered {(int)pushed.StatusCode}");
        }
        finally
        {
            stalled.ForEach(s => s.Dispose());
        }
    }

    [Fact]
    public async Task OneAccountsDevicesTogetherHoldNoMoreThanItsShareOfBodies()
    {
        using var host = Host(new()
        {
            ["Admission:PerDeviceBodyBytes"] = "524288",
            ["Admission:PerUserBodyBytes"] = "1048576",
            ["Admission:BodyProgressWindowMs"] = "600000",
        });
        using var first = await StalledPushAsync(host, "phone", announced: 450_000, sent: 400_000);
        using var second = await StalledPushAsync(host, "tablet", announced: 450_000, sent: 400_000);
        Assert.True(await EventuallyAsync(() => host.Services.GetRequiredService<DeviceLoads>().BodyBytes >= 800_000), "the first two bodies were not held");

        using var third = await StalledPushAsync(host, "laptop", announced: 450_000, sent: 400_000);
        using var stranger = await StalledPushAsync(host, "strangers-phone", announced: 450_000, sent: 400_000, user: User + 1);
        var refused = await third.ReadStatusLineAsync();
        var headers = await third.ReadHeadersAsync();

        Assert.Contains(" 429 ", refused, StringComparison.Ordinal);
        Assert.Contains("retry-after:", headers, StringComparison.OrdinalIgnoreCase);
        // Another user's body is held as usual: it is still arriving, unanswered.
        Assert.False(stranger.HasAnswered(), "another account's body was refused");
    }

    private static SyncGrpcTestHost Host(Dictionary<string, string?> settings) => new(SharedDemoDatabase.ConnectionString, settings: settings);

    private static async Task<bool> EventuallyAsync(Func<bool> condition)
    {
        for (var i = 0; i < 200 && !condition(); i++)
        {
            await Task.Delay(100, TestTimeout.Token);
        }

        return condition();
    }

    /// <summary>A REST push announcing <paramref name="announced"/> bytes that sends <paramref name="sent"/> of them and then nothing.</summary>
    private static async Task<StalledRequest> StalledPushAsync(SyncGrpcTestHost host, string device, long announced, int sent, long user = User)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { NoDelay = true };
        await socket.ConnectAsync(host.RestAddress.Host, host.RestAddress.Port, TestTimeout.Token);
        var stream = new NetworkStream(socket, ownsSocket: true);
        var head = string.Create(CultureInfo.InvariantCulture,
            $"POST /v1/users/{user}/changes HTTP/1.1\r\nHost: {host.RestAddress.Authority}\r\nAuthorization: Bearer {TestTokens.For(user, device)}\r\n" +
            $"Content-Type: application/json\r\nContent-Length: {announced}\r\n\r\n");
        await stream.WriteAsync(Encoding.ASCII.GetBytes(head), TestTimeout.Token);
        var body = new byte[sent];
        Array.Fill(body, (byte)' ');
        body[0] = (byte)'{';
        await stream.WriteAsync(body, TestTimeout.Token);
        return new StalledRequest(stream);
    }

    /// <summary>A gRPC request body: a length prefix announcing <paramref name="announced"/> bytes, <paramref name="sent"/> of them, then nothing until <paramref name="stop"/>.</summary>
    private sealed class StallingContent(int announced, int sent, CancellationToken stop) : HttpContent
    {
        protected override async Task SerializeToStreamAsync(Stream stream, System.Net.TransportContext? context)
        {
            var prefix = new byte[5];
            System.Buffers.Binary.BinaryPrimitives.WriteUInt32BigEndian(prefix.AsSpan(1), (uint)announced);
            await stream.WriteAsync(prefix, stop);
            await stream.WriteAsync(new byte[sent], stop);
            await stream.FlushAsync(stop);
            try
            {
                await Task.Delay(Timeout.Infinite, stop);
            }
            catch (OperationCanceledException)
            {
                // The test is done with the call.
            }
        }

        protected override bool TryComputeLength(out long length)
        {
            length = 0;
            return false;
        }
    }

    private sealed class StalledRequest(NetworkStream stream) : IDisposable
    {
        private readonly StreamReader _reader = new(stream, Encoding.ASCII);
        private Task<string?>? _statusLine;

        public async Task<string> ReadStatusLineAsync() => await (_statusLine ??= _reader.ReadLineAsync(TestTimeout.Token).AsTask()) ?? string.Empty;

        public bool HasAnswered() => _statusLine is { IsCompleted: true } || stream.DataAvailable;

        public async Task<string> ReadHeadersAsync()
        {
            var headers = new StringBuilder();
            while (await _reader.ReadLineAsync(TestTimeout.Token) is { Length: > 0 } line)
            {
                headers.AppendLine(line);
            }

            return headers.ToString();
        }

        public async Task TrickleAsync(int bytesEvery200Ms, CancellationToken stop)
        {
            var filler = new byte[bytesEvery200Ms];
            Array.Fill(filler, (byte)' ');
            try
            {
                while (!stop.IsCancellationRequested)
                {
                    await stream.WriteAsync(filler, stop);
                    await Task.Delay(200, stop);
                }
            }
            catch (Exception error) when (error is OperationCanceledException or IOException)
            {
                // Stopped, or the service closed the connection: either ends the trickle.
            }
        }

        public void Dispose()
        {
            _reader.Dispose();
            stream.Dispose();
        }
    }
}
