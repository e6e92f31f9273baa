using Kobo.Sync.SyncApi.Grpc.Health.V1;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Grpc.Health.V1.HealthCheckResponse.Types;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>grpc.health.v1.Health/Check on the service's gRPC listener, following the "ready" health checks.</summary>
public sealed class GrpcHealthTests : IAsyncLifetime
{
    private SyncGrpcTestHost _host = null!;

    public async Task InitializeAsync() => _host = await SyncGrpcTestHost.StartAsync();

    public async Task DisposeAsync() => await _host.DisposeAsync();

    private Task<HealthCheckResponse> CheckAsync(string service) => _host.Client.UnaryAsync(
        "grpc.health.v1.Health", "Check", new HealthCheckRequest { Service = service }, HealthCheckResponse.Parser,
        cancellationToken: TestTimeout.Token);

    [Theory]
    [InlineData("")]
    [InlineData("kobo.sync.v1.SyncService")]
    public async Task TheServerAndTheSyncServiceAreServingWhileReadinessPasses(string service) =>
        Assert.Equal(ServingStatus.Serving, (await CheckAsync(service)).Status);

    [Theory]
    [InlineData("")]
    [InlineData("kobo.sync.v1.SyncService")]
    public async Task TheyAreNotServingWhileAReadinessCheckFails(string service)
    {
        _host.Store.Ready = false;

        Assert.Equal(ServingStatus.NotServing, (await CheckAsync(service)).Status);
    }

    [Fact]
    public async Task AnUnknownServiceNameIsNotFound()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CheckAsync("kobo.sync.v1.NoSuchService"));

        Assert.Equal(StatusCode.NotFound, error.Status);
    }

    [Fact]
    public async Task WatchIsUnimplemented()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => _host.Client.UnaryAsync(
            "grpc.health.v1.Health", "Watch", new HealthCheckRequest(), HealthCheckResponse.Parser, cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.Unimplemented, error.Status);
    }
}
