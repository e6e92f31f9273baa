using Grpc.Core;
using Grpc.Health.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Interop;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Grpc.Health.V1.HealthCheckResponse.Types;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>The standard grpc.health.v1.Health service on the service's gRPC listener, following the "ready" health checks.</summary>
public sealed class GrpcHealthTests(SyncGrpcTestHost host) : IClassFixture<SyncGrpcTestHost>
{
    internal static async Task<HealthCheckResponse> CheckAsync(GrpcTestClient client, string service) =>
        await new Health.HealthClient(client.Invoker).CheckAsync(new HealthCheckRequest { Service = service }, cancellationToken: TestTimeout.Token);

    [Theory]
    [InlineData("")]
    [InlineData("kobo.sync.v1.SyncService")]
    public async Task TheServerAndTheSyncServiceAreServingWhileTheDatabaseAnswers(string service) =>
        Assert.Equal(ServingStatus.Serving, (await CheckAsync(host.Client, service)).Status);

    [Fact]
    public async Task AnUnknownServiceNameIsNotFound()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CheckAsync(host.Client, "kobo.sync.v1.NoSuchService"));

        Assert.Equal(StatusCode.NotFound, error.StatusCode);
    }

    [Fact]
    public async Task WatchStreamsTheServersCurrentStatus()
    {
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestTimeout.Token);
        using var watch = new Health.HealthClient(host.Client.Invoker).Watch(new HealthCheckRequest(), cancellationToken: stop.Token);

        Assert.True(await watch.ResponseStream.MoveNext(stop.Token), "the stream ended without a status");
        Assert.Equal(ServingStatus.Serving, watch.ResponseStream.Current.Status);
        stop.Cancel();
    }
}

/// <summary>
/// The same check once the service's database stops answering (connections refused and cut) after a
/// normal start: NOT_SERVING, to the in-house client and both independent clients.
/// </summary>
public sealed class GrpcHealthWithStorageDownTests(ServiceWithStorageDown service) : IClassFixture<ServiceWithStorageDown>
{
    [Theory]
    [InlineData("")]
    [InlineData("kobo.sync.v1.SyncService")]
    public async Task TheServerAndTheSyncServiceAreNotServing(string name) =>
        Assert.Equal(ServingStatus.NotServing, (await GrpcHealthTests.CheckAsync(service.Host.Client, name)).Status);

    [NodeInteropFact]
    public Task TheNodeClientSeesNotServing() => InteropNotServingAsync(InteropClient.Node);

    [PythonInteropFact]
    public Task ThePythonClientSeesNotServing() => InteropNotServingAsync(InteropClient.Python);

    private async Task InteropNotServingAsync(InteropClient client)
    {
        var result = await client.CallAsync(service.Host.Target, "grpc.health.v1.Health/Check", """{"service":""}""");

        Assert.True(result.Ok, result.ToString());
        Assert.Equal("NOT_SERVING", result.Response.GetProperty("status").GetString());
    }
}
