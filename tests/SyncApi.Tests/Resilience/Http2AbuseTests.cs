using System.Diagnostics;
using System.Globalization;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Kobo.Sync.SyncApi.Tests.Support.Http2;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.TricklingCalls;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// HTTP/2 abuse on the gRPC listener, each attack bounded in frames and time on loopback: rapid stream
/// resets (CVE-2023-44487), a CONTINUATION flood (the CVE-2024-27316 class), and header floods (many
/// headers, an oversized one, HPACK dynamic-table abuse). Kestrel's limits (docs/operations.md, "HTTP/2
/// limits in force") cut each abusive connection long before the attacker's budget runs out, while
/// devices on other connections are served at their usual speed.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class Http2AbuseTests(SyncGrpcTestHost host, ITestOutputHelper output) : IClassFixture<SyncGrpcTestHost>
{
    private const string GetUser = "/kobo.sync.v1.SyncService/GetUser";
    private static readonly TimeSpan AttackBudget = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task RapidStreamResetsAreCutOffWithEnhanceYourCalmWhileDevicesAreServed()
    {
        var token = TestTokens.For(User);
        var outcome = await AttackWhileDevicesCallAsync(50_000, async (connection, sent, stop) =>
        {
            var block = RawHttp2Connection.HeaderBlock(RawHttp2Connection.GrpcRequest(host.GrpcAddress, GetUser, token));
            for (var stream = 1; !stop.IsCancellationRequested && sent.Value < 50_000; stream += 2)
            {
                await connection.WriteFrameAsync(Http2Frames.Headers, Http2Frames.EndHeaders, stream, block, stop);
                await connection.ResetAsync(stream, Http2Frames.Cancel, stop);
                sent.Value += 2;
            }
        });

        Assert.True(outcome.Cut, outcome.ToString());
        // Kestrel aborts the connection with GOAWAY ENHANCE_YOUR_CALM; the GOAWAY itself may be lost to
        // the reset of a socket that still holds the attacker's unread frames.
        Assert.True(outcome.GoAwayCode is null or Http2Frames.EnhanceYourCalm, outcome.ToString());
    }

    [Theory]
    [InlineData(64)]
    [InlineData(0)]
    public async Task AContinuationFloodIsCutOffWhileDevicesAreServed(int headerBytesPerFrame)
    {
        var outcome = await AttackWhileDevicesCallAsync(200_000, async (connection, sent, stop) =>
        {
            var start = RawHttp2Connection.HeaderBlock(RawHttp2Connection.GrpcRequest(host.GrpcAddress, GetUser, TestTokens.For(User)));
            await connection.WriteFrameAsync(Http2Frames.Headers, 0, 1, start, stop);
            sent.Value++;
            for (var i = 0; !stop.IsCancellationRequested && sent.Value < 200_000; i++)
            {
                var more = headerBytesPerFrame == 0 ? Array.Empty<byte>()
                    : RawHttp2Connection.HeaderBlock([new($"x-flood-{i}", new string('f', headerBytesPerFrame))]);
                await connection.WriteFrameAsync(Http2Frames.Continuation, 0, 1, more, stop);
                sent.Value++;
            }
        });

        if (headerBytesPerFrame > 0)
        {
            // The header bytes reach MaxRequestHeadersTotalSize: GOAWAY PROTOCOL_ERROR.
            Assert.True(outcome.Cut, outcome.ToString());
        }
        else
        {
            // Empty frames add no header bytes, so no limit counts them and Kestrel does not always cut
            // the connection within the run; they cost the server their parsing only, hold one stream
            // that never opens, and the devices above were served meanwhile.
            Assert.False(outcome.Answered || outcome.Served, outcome.ToString());
        }
    }

    [Theory]
    [InlineData("many headers")]
    [InlineData("one header of 64 KiB")]
    [InlineData("table size update past the limit")]
    [InlineData("index past the table")]
    [InlineData("dynamic table churn")]
    public async Task AHeaderFloodIsRefusedWhileDevicesAreServed(string flood)
    {
        var outcome = await AttackAsync(10_000, devicesMeanwhile: false, async (connection, sent, stop) =>
        {
            var request = RawHttp2Connection.GrpcRequest(host.GrpcAddress, GetUser, TestTokens.For(User));
            var block = new List<byte>();
            switch (flood)
            {
                case "many headers":
                    block.AddRange(RawHttp2Connection.HeaderBlock([.. request, .. Enumerable.Range(0, 5_000).Select(i => new KeyValuePair<string, string>($"h{i}", "v"))]));
                    break;
                case "one header of 64 KiB":
                    block.AddRange(RawHttp2Connection.HeaderBlock([.. request, new("x-big", new string('b', 64 * 1024))]));
                    break;
                case "table size update past the limit":
                    RawHttp2Connection.AddInteger(block, 1 << 20, 5, 0x20);
                    block.AddRange(RawHttp2Connection.HeaderBlock(request));
                    break;
                case "index past the table":
                    block.AddRange(RawHttp2Connection.HeaderBlock(request));
                    RawHttp2Connection.AddInteger(block, 5_000, 7, 0x80);
                    break;
                default:
                    // Literals with incremental indexing, each near the whole table's size: every one evicts the last.
                    block.AddRange(RawHttp2Connection.HeaderBlock(request));
                    for (var i = 0; i < 2_000; i++)
                    {
                        block.Add(0x40);
                        block.AddRange(RawHttp2Connection.HeaderBlock([new($"t{i}", new string('t', 4_000))])[1..]);
                    }

                    break;
            }

            // Sliced into frames no larger than the default SETTINGS_MAX_FRAME_SIZE (16 KiB).
            var chunks = block.Chunk(16_384).ToList();
            for (var i = 0; i < chunks.Count && !stop.IsCancellationRequested; i++)
            {
                var flags = (byte)((i == chunks.Count - 1 ? Http2Frames.EndHeaders : 0) | (i == 0 ? Http2Frames.EndStream : 0));
                await connection.WriteFrameAsync(i == 0 ? Http2Frames.Headers : Http2Frames.Continuation, flags, 1, chunks[i], stop);
                sent.Value++;
            }
        });

        Assert.True(outcome.Cut || outcome.StreamReset || outcome.Answered, outcome.ToString());
        Assert.False(outcome.Served, outcome.ToString());
    }

    /// <summary>
    /// Runs <paramref name="attack"/> on a raw connection (at most <paramref name="maxFrames"/> frames,
    /// at most <see cref="AttackBudget"/>) while other devices call as usual; the attack stops as soon as
    /// the server has cut its connection.
    /// </summary>
    private Task<Outcome> AttackWhileDevicesCallAsync(int maxFrames, Func<RawHttp2Connection, Counter, CancellationToken, Task> attack) =>
        AttackAsync(maxFrames, devicesMeanwhile: true, attack);

    /// <summary>As above; a short attack (one header block) is followed by device calls instead of overlapping them.</summary>
    private async Task<Outcome> AttackAsync(int maxFrames, bool devicesMeanwhile, Func<RawHttp2Connection, Counter, CancellationToken, Task> attack)
    {
        await WarmAsync(host);
        using var budget = new CancellationTokenSource(AttackBudget);
        await using var connection = await RawHttp2Connection.OpenAsync(host.GrpcAddress, budget.Token);
        var sent = new Counter();
        var clock = Stopwatch.StartNew();
        var reading = ReadUntilCutAsync(connection, sent, clock, budget);
        var devices = devicesMeanwhile ? DevicesMeanwhileAsync(host) : null;
        try
        {
            await attack(connection, sent, budget.Token);
        }
        catch (Exception exception) when (exception is IOException or OperationCanceledException)
        {
            // The server closed the connection under the attacker, or the budget ran out.
        }

        var outcome = await reading;
        output.WriteLine($"{outcome}; attacker sent {sent.Value} frames (cap {maxFrames})");
        if (devices is not null)
        {
            AssertServedAsUsual(await devices, output);
        }
        else
        {
            // The listener still serves: a device's call right after the cut.
            Assert.Equal(0, (await DeviceRequests.GrpcGetUserAsync(host.Http, User)).Status);
        }

        Assert.True(outcome.FramesSentWhenCut <= maxFrames, outcome.ToString());
        return outcome;
    }

    private static async Task<Outcome> ReadUntilCutAsync(RawHttp2Connection connection, Counter sent, Stopwatch clock, CancellationTokenSource budget)
    {
        var outcome = new Outcome();
        try
        {
            while (await connection.ReadFrameAsync(budget.Token) is { } frame)
            {
                switch (frame.Type)
                {
                    case Http2Frames.GoAway:
                        outcome = outcome with { GoAwayCode = frame.ErrorCode };
                        break;
                    case Http2Frames.RstStream:
                        outcome = outcome with { StreamReset = true, ResetCode = frame.ErrorCode };
                        break;
                    case Http2Frames.Headers:
                        outcome = outcome with { Answered = true };
                        break;
                    case Http2Frames.Data:
                        outcome = outcome with { Served = true };
                        break;
                }

                if (frame.Type == Http2Frames.GoAway && frame.ErrorCode != 0)
                {
                    break;
                }
            }

            outcome = outcome with { Cut = true };
        }
        catch (OperationCanceledException)
        {
            // The attacker's budget ran out with the connection still open.
        }

        outcome = outcome with { FramesSentWhenCut = sent.Value, Elapsed = clock.Elapsed };
        await budget.CancelAsync();
        return outcome;
    }

    /// <summary>Frames the attacker has written so far.</summary>
    private sealed class Counter
    {
        public int Value;
    }

    /// <summary>What the server did to the abusive connection.</summary>
    private sealed record Outcome(
        bool Cut = false, uint? GoAwayCode = null, bool StreamReset = false, uint? ResetCode = null, bool Answered = false, bool Served = false,
        int FramesSentWhenCut = 0, TimeSpan Elapsed = default)
    {
        public override string ToString() => string.Create(CultureInfo.InvariantCulture,
            $"connection {(Cut ? "cut" : "still open")} after {Elapsed.TotalMilliseconds:F0} ms and {FramesSentWhenCut} frames; GOAWAY {GoAwayCode?.ToString("x", CultureInfo.InvariantCulture) ?? "none"}; RST_STREAM {ResetCode?.ToString("x", CultureInfo.InvariantCulture) ?? "none"}; answered {Answered}; served {Served}");
    }
}
