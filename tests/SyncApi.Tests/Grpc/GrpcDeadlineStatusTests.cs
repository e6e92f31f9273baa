using Grpc.Core;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Grpc;
using Microsoft.Extensions.Logging.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>
/// Which status a failure near the call's deadline gets. The request's database budget and a gRPC
/// deadline of the same length end within a fraction of a millisecond of each other, so a storage
/// timeout can surface just before the deadline: the client, about to give up, must hear
/// DEADLINE_EXCEEDED, not UNAVAILABLE (which it would retry). A full run once saw the Python client get
/// UNAVAILABLE "did not answer within the request's time budget" for a deadline equal to the budget.
/// </summary>
[Trait("Category", "Fast")]
public sealed class GrpcDeadlineStatusTests
{
    private static readonly DateTime Deadline = new(2026, 11, 25, 12, 0, 0, DateTimeKind.Utc);

    [Theory]
    [InlineData(-1)] // a millisecond before the deadline: the storage budget's timer fired first
    [InlineData(0)]
    [InlineData(5)]
    public async Task AStorageTimeoutAtTheDeadlineIsDeadlineExceeded(int millisecondsFromDeadline)
    {
        var status = await FailAtAsync(Deadline.AddMilliseconds(millisecondsFromDeadline), Deadline);
        Assert.Equal(StatusCode.DeadlineExceeded, status.StatusCode);
    }

    [Fact]
    public async Task AStorageTimeoutWellBeforeTheDeadlineIsUnavailable()
    {
        var status = await FailAtAsync(Deadline.AddSeconds(-2), Deadline);
        Assert.Equal(StatusCode.Unavailable, status.StatusCode);
    }

    [Fact]
    public async Task AStorageTimeoutWithoutADeadlineIsUnavailable()
    {
        var status = await FailAtAsync(Deadline, DateTime.MaxValue);
        Assert.Equal(StatusCode.Unavailable, status.StatusCode);
    }

    private static async Task<Status> FailAtAsync(DateTime now, DateTime deadline)
    {
        var clock = new FixedClock(new DateTimeOffset(now));
        var interceptor = new GrpcErrorInterceptor(NullLogger<GrpcErrorInterceptor>.Instance, clock);
        var context = new DeadlineOnlyContext(deadline);
        var error = await Assert.ThrowsAsync<RpcException>(() => interceptor.UnaryServerHandler<string, string>(
            "request",
            context,
            (_, _) =>
            {
                // The handler started in time and its database call ran out of budget at "now".
                clock.Now = new DateTimeOffset(now);
                throw new StorageUnavailableException("The database did not answer within the request's time budget.", TimeSpan.FromSeconds(5));
            }));
        return error.Status;
    }

    /// <summary>A clock that stays where it is set; before the handler runs it is well before any deadline.</summary>
    private sealed class FixedClock(DateTimeOffset start) : TimeProvider
    {
        public DateTimeOffset Now { get; set; } = start.AddMinutes(-1);

        public override DateTimeOffset GetUtcNow() => Now;
    }

    /// <summary>A server call context that carries only a deadline, as the interceptor reads it.</summary>
    private sealed class DeadlineOnlyContext(DateTime deadline) : ServerCallContext
    {
        protected override string MethodCore => "/kobo.sync.v1.SyncService/GetUser";

        protected override string HostCore => "localhost";

        protected override string PeerCore => "ipv4:127.0.0.1:1";

        protected override DateTime DeadlineCore => deadline;

        protected override Metadata RequestHeadersCore { get; } = [];

        protected override CancellationToken CancellationTokenCore => CancellationToken.None;

        protected override Metadata ResponseTrailersCore { get; } = [];

        protected override Status StatusCore { get; set; }

        protected override WriteOptions? WriteOptionsCore { get; set; }

        protected override AuthContext AuthContextCore { get; } = new(null, []);

        protected override ContextPropagationToken CreatePropagationTokenCore(ContextPropagationOptions? options) =>
            throw new NotSupportedException();

        protected override Task WriteResponseHeadersAsyncCore(Metadata responseHeaders) => Task.CompletedTask;
    }
}
