using Kobo.Sync.SyncApi.Grpc.Health.V1;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Grpc.Wire.Client;
using Kobo.Sync.SyncApi.Tests.Grpc.Interop;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Grpc.Health.V1.HealthCheckResponse.Types;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>grpc.health.v1.Health/Check on the service's gRPC listener, following the "ready" health checks.</summary>
public sealed class GrpcHealthTests(SyncGrpcTestHost host) : IClassFixture<SyncGrpcTestHost>
{
    internal static Task<HealthCheckResponse> CheckAsync(GrpcUnaryClient client, string service) => client.UnaryAsync(
        "grpc.health.v1.Health", "Check", new HealthCheckRequest { Service = service }, HealthCheckResponse.Parser,
        cancellationToken: TestTimeout.Token);

    [Theory]
    [InlineData("")]
    [InlineData("kobo.sync.v1.SyncService")]
    public async Task TheServerAndTheSyncServiceAreServingWhileTheDatabaseAnswers(string service) =>
        Assert.Equal(ServingStatus.Serving, (await CheckAsync(host.Client, service)).Status);

    [Fact]
    public async Task AnUnknownServiceNameIsNotFound()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CheckAsync(host.Client, "kobo.sync.v1.NoSuchService"));

        Assert.Equal(StatusCode.NotFound, error.Status);
    }

    [Fact]
    public async Task WatchIsUnimplemented()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => host.Client.UnaryAsync(
            "grpc.health.v1.Health", "Watch", new HealthCheckRequest(), HealthCheckResponse.Parser, cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.Unimplemented, error.Status);
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
