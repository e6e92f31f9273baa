using System.Buffers.Binary;
using System.Diagnostics;
using System.Net;
using System.Net.Http.Headers;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Support.Faults;

/// <summary>
/// Callers that announce a body and trickle it, and the whole requests of other devices sent
/// meanwhile, for the tests that show slow callers hold nothing the others need.
/// </summary>
public static class TricklingCalls
{
    public const long User = 12;
    private const string Push = "/kobo.sync.v1.SyncService/PushChanges";

    /// <summary>Whole requests from other devices, REST and gRPC alternately, 40 a second for 4 s.</summary>
    public static async Task<DeviceCall[]> DevicesMeanwhileAsync(SyncGrpcTestHost host)
    {
        using var rest = new HttpClient { BaseAddress = host.RestAddress, Timeout = TimeSpan.FromSeconds(20) };
        return await SteadyArrivals.SendAsync(
            TimeSpan.FromMilliseconds(25),
            (_, elapsed) => elapsed < TimeSpan.FromSeconds(4),
            async (i, _) =>
            {
                if (i % 2 == 0)
                {
                    var answer = await DeviceRequests.RestGetUserAsync(rest, User, $"device-{i % 50}");
                    return new DeviceCall(answer.Status == 200 ? 0 : answer.Status, answer.RetryAfter is not null, answer.Elapsed);
                }

                var call = await DeviceRequests.GrpcGetUserAsync(host.Http, User, $"device-{i % 50}");
                return new DeviceCall(call.Status, call.RetryPushbackMs is not null, call.Elapsed);
            });
    }

    /// <summary>
    /// At least 95 % of the devices were served within 1 s. The slow tail on a saturated box may also
    /// run out of its request budget: such a call must be a retryable refusal (503 with Retry-After,
    /// UNAVAILABLE with a retry pushback) that the device's retry gets through, never another status.
    /// </summary>
    public static void AssertServedAsUsual(DeviceCall[] devices, ITestOutputHelper output)
    {
        var ms = devices.Select(d => d.Elapsed.TotalMilliseconds).Order().ToList();
        var refused = devices.Count(d => d.Status != 0);
        output.WriteLine($"{devices.Length} device calls: p50 {ms[ms.Count / 2]:F0} ms, p95 {ms[(int)(ms.Count * 0.95)]:F0} ms, max {ms[^1]:F0} ms, {refused} refused for retry");
        Assert.All(devices, d => Assert.True(d.Status == 0 || (d.Status is 503 or 14 && d.RetryAdvised), d.ToString()));
        var servedInASecond = devices.Count(d => d.Status == 0 && d.Elapsed < TimeSpan.FromSeconds(1));
        Assert.True(servedInASecond >= devices.Length * 0.95, $"{servedInASecond} of {devices.Length} served within 1 s");
    }

    /// <summary>One device call: 0 when served, else the HTTP or gRPC status, and whether it said when to retry.</summary>
    public readonly record struct DeviceCall(int Status, bool RetryAdvised, TimeSpan Elapsed);

    public static async Task WarmAsync(SyncGrpcTestHost host)
    {
        using var rest = new HttpClient { BaseAddress = host.RestAddress };
        for (var i = 0; i < 5; i++)
        {
            Assert.Equal(200, (await DeviceRequests.RestGetUserAsync(rest, User)).Status);
            Assert.Equal(0, (await DeviceRequests.GrpcGetUserAsync(host.Http, User)).Status);
        }
    }

    public static HttpClient NewH2cClient(SyncGrpcTestHost host) => new(new SocketsHttpHandler { EnableMultipleHttp2Connections = true })
    {
        BaseAddress = host.GrpcAddress,
        DefaultRequestVersion = HttpVersion.Version20,
        DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
        Timeout = Timeout.InfiniteTimeSpan,
    };

    /// <summary>A PushChanges call announcing a message just under 4 MiB, then trickling it until stopped; the answer's status.</summary>
    public static Task<Trickled> TrickleGrpcAsync(HttpClient grpc, string? token, CancellationToken stop) =>
        TrickleLargeGrpcAsync(grpc, token, headBytes: 0, stop);

    /// <summary>
    /// A PushChanges call announcing a message just under 4 MiB, sending <paramref name="headBytes"/> of it
    /// at once (more than the 64 KiB the service used to wait for) and trickling the rest until stopped.
    /// </summary>
    public static async Task<Trickled> TrickleLargeGrpcAsync(HttpClient grpc, string? token, int headBytes, CancellationToken stop)
    {
        var head = new byte[5 + headBytes];
        BinaryPrimitives.WriteUInt32BigEndian(head.AsSpan(1), (4 * 1024 * 1024) - 1);
        using var request = new HttpRequestMessage(HttpMethod.Post, Push)
        {
            Version = HttpVersion.Version20,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Content = new TricklingContent(head, stop),
        };
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/grpc");
        request.Headers.TE.ParseAdd("trailers");
        if (token is not null)
        {
            request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
        }

        return await SendAsync(grpc, request, stop);
    }

    /// <summary>
    /// A REST push announcing <c>Content-Length: 1000000</c>, sending <paramref name="headBytes"/> of it at
    /// once (JSON whitespace after the opening) and trickling the rest until stopped or answered. On a
    /// socket of its own, since HttpClient over HTTP/1.1 shows no answer before its body is sent.
    /// </summary>
    public static async Task<Trickled> TrickleLargeRestAsync(Uri rest, string token, int headBytes, CancellationToken stop)
    {
        var clock = Stopwatch.StartNew();
        using var socket = new System.Net.Sockets.Socket(System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp) { NoDelay = true };
        var body = new byte[headBytes];
        Array.Fill(body, (byte)' ');
        """{"changes":["""u8.CopyTo(body);
        var head = System.Text.Encoding.ASCII.GetBytes(
            $"POST /v1/users/{User}/changes HTTP/1.1\r\nHost: {rest.Host}:{rest.Port}\r\nAuthorization: Bearer {token}\r\n"
            + "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n");
        try
        {
            await socket.ConnectAsync(rest.Host, rest.Port, stop);
            await socket.SendAsync(head, System.Net.Sockets.SocketFlags.None, stop);
            await socket.SendAsync(body, System.Net.Sockets.SocketFlags.None, stop);
            var filler = new byte[64];
            Array.Fill(filler, (byte)' ');
            while (socket.Available == 0)
            {
                await Task.Delay(TimeSpan.FromMilliseconds(200), stop);
                await socket.SendAsync(filler, System.Net.Sockets.SocketFlags.None, stop);
            }

            var answer = new byte[4096];
            var read = await socket.ReceiveAsync(answer, System.Net.Sockets.SocketFlags.None, stop);
            var text = System.Text.Encoding.ASCII.GetString(answer, 0, read);
            var status = int.Parse(text.AsSpan(9, 3), System.Globalization.CultureInfo.InvariantCulture);
            return new Trickled(status, null, clock.Elapsed, text.Contains("\r\nRetry-After:", StringComparison.OrdinalIgnoreCase));
        }
        catch (Exception exception) when (exception is OperationCanceledException or System.Net.Sockets.SocketException && stop.IsCancellationRequested)
        {
            return new Trickled(0, null, clock.Elapsed);
        }
    }

    /// <summary>A REST push whose JSON body starts and never finishes until stopped.</summary>
    public static async Task<Trickled> TrickleRestAsync(HttpClient rest, string token, CancellationToken stop)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, $"/v1/users/{User}/changes")
        {
            Content = new TricklingContent("""{"changes":["""u8.ToArray(), stop),
        };
        request.Content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
        return await SendAsync(rest, request, stop);
    }

    private static async Task<Trickled> SendAsync(HttpClient http, HttpRequestMessage request, CancellationToken stop)
    {
        var clock = Stopwatch.StartNew();
        try
        {
            using var response = await http.SendAsync(request, HttpCompletionOption.ResponseHeadersRead, stop);
            var status = response.Headers.TryGetValues("grpc-status", out var values) ? values.Single() : null;
            var retryAdvised = response.Headers.RetryAfter is not null || response.Headers.Contains("grpc-retry-pushback-ms");
            return new Trickled((int)response.StatusCode, status, clock.Elapsed, retryAdvised);
        }
        catch (Exception exception) when (exception is OperationCanceledException or HttpRequestException && stop.IsCancellationRequested)
        {
            return new Trickled(0, null, clock.Elapsed);
        }
    }

    /// <summary>How a trickled call ended: its statuses (0 and null when the test stopped it still sending), and whether it said when to retry.</summary>
    public readonly record struct Trickled(int HttpStatus, string? GrpcStatus, TimeSpan Elapsed, bool RetryAdvised = false);

    /// <summary>
    /// A body that never ends while it runs: its head, then 64 spaces every 200 ms (320 bytes/s, above
    /// Kestrel's minimum data rate, so only the service's own choices decide what happens to it).
    /// </summary>
    private sealed class TricklingContent(byte[] head, CancellationToken stop, long announcedLength = -1) : HttpContent
    {
        private static readonly byte[] Filler = [.. Enumerable.Repeat((byte)' ', 64)];

        protected override async Task SerializeToStreamAsync(Stream stream, TransportContext? context)
        {
            await stream.WriteAsync(head, stop);
            await stream.FlushAsync(stop);
            while (true)
            {
                await Task.Delay(TimeSpan.FromMilliseconds(200), stop);
                await stream.WriteAsync(Filler, stop);
                await stream.FlushAsync(stop);
            }
        }

        protected override bool TryComputeLength(out long length)
        {
            length = announcedLength;
            return announcedLength >= 0;
        }
    }
}
