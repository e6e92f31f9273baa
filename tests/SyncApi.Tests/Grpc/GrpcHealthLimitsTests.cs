using Grpc.Core;
using Grpc.Health.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Grpc.Health.V1.HealthCheckResponse.Types;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>
/// The anonymous health service is bounded as an anonymous caller must be: a request over 1 KiB is
/// RESOURCE_EXHAUSTED, a Watch stream ends with DEADLINE_EXCEEDED after <c>Admission:HealthWatchMaxSeconds</c>,
/// and past <c>Admission:HealthWatchLimit</c> open watches another is RESOURCE_EXHAUSTED while Check still answers.
/// </summary>
public sealed class GrpcHealthLimitsTests(GrpcHealthLimitsTests.FewShortWatches service) : IClassFixture<GrpcHealthLimitsTests.FewShortWatches>
{
    /// <summary>The whole service with two health watches at most, of 5 seconds each.</summary>
    public sealed class FewShortWatches() : IDisposable
    {
        public SyncGrpcTestHost Host { get; } = new(SharedDemoDatabase.ConnectionString, settings: new Dictionary<string, string?>
        {
            ["Admission:HealthWatchLimit"] = "2",
            ["Admission:HealthWatchMaxSeconds"] = "5",
        });

        public void Dispose() => Host.Dispose();
    }

    private Health.HealthClient Client => new(service.Host.Client.Invoker);

    [Fact]
    public async Task AHealthRequestOverOneKibibyteIsResourceExhausted()
    {
        var error = await Assert.ThrowsAsync<RpcException>(async () =>
            await Client.CheckAsync(new HealthCheckRequest { Service = new string('s', 2_000) }, cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.ResourceExhausted, error.StatusCode);
        Assert.Equal(ServingStatus.Serving, (await Client.CheckAsync(new HealthCheckRequest(), cancellationToken: TestTimeout.Token)).Status);
    }

    [Fact]
    public async Task AWatchEndsWithDeadlineExceededOnceItsTimeIsUp()
    {
        using var bound = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        using var watch = Client.Watch(new HealthCheckRequest(), cancellationToken: bound.Token);
        Assert.True(await watch.ResponseStream.MoveNext(bound.Token), "the stream ended without a status");

        var error = await Assert.ThrowsAsync<RpcException>(async () =>
        {
            while (await watch.ResponseStream.MoveNext(bound.Token))
            {
            }
        });

        Assert.Equal(StatusCode.DeadlineExceeded, error.StatusCode);
        Assert.False(bound.IsCancellationRequested, "the watch outlived the test's bound");
    }

    [Fact]
    public async Task PastTheLimitOfOpenWatchesAnotherIsRefusedWhileCheckStillAnswers()
    {
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(60));
        // A Watch only ends on its own once its time is up, so the two stay open while the third asks.
        using var first = Client.Watch(new HealthCheckRequest(), cancellationToken: stop.Token);
        using var second = Client.Watch(new HealthCheckRequest(), cancellationToken: stop.Token);
        Assert.True(await first.ResponseStream.MoveNext(stop.Token));
        Assert.True(await second.ResponseStream.MoveNext(stop.Token));

        using var third = Client.Watch(new HealthCheckRequest(), cancellationToken: stop.Token);
        var error = await Assert.ThrowsAsync<RpcException>(() => third.ResponseStream.MoveNext(stop.Token));

        Assert.Equal(StatusCode.ResourceExhausted, error.StatusCode);
        Assert.Equal(ServingStatus.Serving, (await Client.CheckAsync(new HealthCheckRequest(), cancellationToken: stop.Token)).Status);
        await stop.CancelAsync();
    }
}
