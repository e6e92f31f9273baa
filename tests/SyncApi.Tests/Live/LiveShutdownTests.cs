using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Live.Support.TwoInstances;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>An instance that shuts down answers the devices waiting on it at once, rather than drain them for a minute.</summary>
public sealed class LiveShutdownTests(LiveShutdownTests.OwnDatabase service) : IClassFixture<LiveShutdownTests.OwnDatabase>
{
    public sealed class OwnDatabase : TwoInstances;

    [Fact]
    public async Task HeldPullsAreAnsweredAndWatchesEndUnavailableWhenTheInstanceStops()
    {
        var (ada, ben) = (service.NewUser(), service.NewUser());
        var host = new SyncGrpcTestHost(service.ConnectionString);
        try
        {
            using var device = Rest(host, ada);
            using var client = new GrpcTestClient(host.GrpcAddress); // outlives the host's own
            var poll = LongPollAsync(device, ada, null, wait: 25);
            using var watch = client.Sync.WatchChanges(
                new WatchChangesRequest { UserNo = ben }, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(ben)),
                DateTime.UtcNow.AddSeconds(25), TestTimeout.Token);
            Assert.True(await watch.ResponseStream.MoveNext(TestTimeout.Token));
            await WaitingAsync(host, 2, "a pull and a watch wait");

            var stopping = Task.Run(host.Dispose);
            var answer = await poll;
            var ended = await Assert.ThrowsAsync<RpcException>(() => watch.ResponseStream.MoveNext(TestTimeout.Token));
            await stopping;

            Assert.Equal(200, answer.Status);
            Assert.Empty(answer.Changes);
            Assert.True(answer.Elapsed < TimeSpan.FromSeconds(10), $"answered after {answer.Elapsed}");
            Assert.Equal(StatusCode.Unavailable, ended.StatusCode);
        }
        finally
        {
            host.Dispose();
        }
    }
}
