using System.Buffers.Binary;
using System.Globalization;
using System.Net.Http.Headers;
using System.Net.Http.Json;
using System.Net.Sockets;
using System.Text;
using Google.Protobuf;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support.Http2;
using Microsoft.Extensions.DependencyInjection;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Support.Faults;

/// <summary>
/// Devices that ask for a large answer and never read it: a REST pull on a socket with a tiny receive
/// buffer, a gRPC pull on an HTTP/2 connection that never reads (so never opens its flow-control window
/// past the first 64 KiB), or one that announces a window of 0.
/// </summary>
public static class SlowReaders
{
    /// <summary>Changes in one full pull of a <see cref="SeedAsync"/> user: its whole history, in one page.</summary>
    public const int PageSize = 1_000;

    /// <summary>The least size of a full pull's answer (its texts alone).</summary>
    public const long AnswerBytesAtLeast = PageSize * 7_000L;

    /// <summary>
    /// A user of its own with <see cref="PageSize"/> highlights of 7,000 characters each, so that one
    /// full pull is an answer of about 7 MB: more than a loopback socket's buffers hold.
    /// </summary>
    public static async Task SeedAsync(SyncGrpcTestHost host, long user)
    {
        await DevicePushes.AddUserAsync(host.Services.GetRequiredService<NpgsqlDataSource>(), user);
        using var rest = new HttpClient { BaseAddress = host.RestAddress, Timeout = TimeSpan.FromSeconds(60) };
        var text = new string('x', 7_000);
        for (var batch = 0; batch < PageSize / 500; batch++)
        {
            var changes = Enumerable.Range(batch * 500, 500).Select(i => new
            {
                op = "upsert", bookNo = "7", key = $"large-{i}", text, start = 0, length = 30, color = "yellow", modifiedAt = DateTimeOffset.UtcNow,
            });
            using var request = new HttpRequestMessage(HttpMethod.Post, $"/v1/users/{user}/changes") { Content = JsonContent.Create(new { changes }) };
            request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(user, "seeding-device"));
            using var response = await rest.SendAsync(request);
            Assert.Equal(200, (int)response.StatusCode);
        }
    }

    /// <summary>A REST full pull on a socket that reads nothing (a 4 KiB receive buffer); dispose it to hang up.</summary>
    public static async Task<Socket> RestPullNeverReadAsync(Uri rest, long user, string device)
    {
        var socket = new Socket(SocketType.Stream, ProtocolType.Tcp) { ReceiveBufferSize = 4096, NoDelay = true };
        await socket.ConnectAsync(rest.Host, rest.Port);
        var request = $"GET /v1/users/{user}/changes?pageSize={PageSize} HTTP/1.1\r\nHost: {rest.Host}:{rest.Port}\r\n"
            + $"Authorization: Bearer {TestTokens.For(user, device)}\r\n\r\n";
        await socket.SendAsync(Encoding.ASCII.GetBytes(request));
        return socket;
    }

    /// <summary>
    /// A gRPC full pull on a connection of its own whose frames are never read; with <paramref name="zeroWindow"/>
    /// it also announces SETTINGS_INITIAL_WINDOW_SIZE 0, so not one byte of the answer may be sent.
    /// </summary>
    public static async Task<RawHttp2Connection> GrpcPullNeverReadAsync(Uri grpc, long user, string device, bool zeroWindow, CancellationToken cancellationToken)
    {
        var connection = await RawHttp2Connection.OpenAsync(grpc, cancellationToken);
        if (zeroWindow)
        {
            // SETTINGS_INITIAL_WINDOW_SIZE (0x4) = 0.
            await connection.WriteFrameAsync(Http2Frames.Settings, 0, 0, new byte[] { 0, 4, 0, 0, 0, 0 }, cancellationToken);
        }

        var headers = RawHttp2Connection.HeaderBlock(
            RawHttp2Connection.GrpcRequest(grpc, "/kobo.sync.v1.SyncService/PullChanges", TestTokens.For(user, device)));
        await connection.WriteFrameAsync(Http2Frames.Headers, Http2Frames.EndHeaders, 1, headers, cancellationToken);
        var message = new PullChangesRequest { UserNo = user, PageSize = PageSize }.ToByteArray();
        var frame = new byte[5 + message.Length];
        BinaryPrimitives.WriteUInt32BigEndian(frame.AsSpan(1), (uint)message.Length);
        message.CopyTo(frame, 5);
        await connection.WriteFrameAsync(Http2Frames.Data, Http2Frames.EndStream, 1, frame, cancellationToken);
        return connection;
    }

    /// <summary>The bytes this instance holds of answers waiting for their devices (<c>kobo_sync_buffered_bytes{direction="answer"}</c>).</summary>
    public static async Task<long> AnswerBytesHeldAsync(SyncGrpcTestHost host)
    {
        using var rest = new HttpClient { BaseAddress = host.RestAddress };
        using var request = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        request.Headers.Accept.ParseAdd("text/plain");
        using var response = await rest.SendAsync(request);
        var text = await response.Content.ReadAsStringAsync();
        var line = text.Split('\n').FirstOrDefault(l => l.StartsWith("kobo_sync_buffered_bytes{", StringComparison.Ordinal)
            && l.Contains("direction=\"answer\"", StringComparison.Ordinal));
        // name{labels} value [timestamp]
        return line is null ? 0 : (long)double.Parse(line[(line.LastIndexOf('}') + 1)..].Trim().Split(' ')[0], CultureInfo.InvariantCulture);
    }
}
