using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>
/// The parts of the gRPC contract the service decides on top of Grpc.AspNetCore: a generic INTERNAL
/// for an unexpected failure (never the framework's UNKNOWN, never the exception's text), and the
/// 4 MiB message limit, on a service whose user store fails with a bug.
/// </summary>
public sealed class GrpcContractTests(GrpcContractTests.BrokenStore service) : IClassFixture<GrpcContractTests.BrokenStore>
{
    private const string Secret = "connection string with password=hunter2";

    public sealed class BrokenStore : IDisposable
    {
        public SyncGrpcTestHost Host { get; } = new(
            SharedDemoDatabase.ConnectionString,
            testServices: services => services.Replace(ServiceDescriptor.Singleton<IDeviceReadStore, ThrowingStore>()));

        public void Dispose() => Host.Dispose();
    }

    [Fact]
    public async Task AnUnexpectedFailureIsInternalWithAGenericMessageAndIsLogged()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => service.Host.Client.UnaryAsync(
            "kobo.sync.v1.SyncService", "GetUser", new GetUserRequest { UserNo = 12 }, User.Parser, As(12), cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.Internal, error.StatusCode);
        Assert.Equal("The server failed to process the call.", error.Status.Detail);
        Assert.DoesNotContain("hunter2", error.Status.Detail, StringComparison.Ordinal);
        Assert.Contains(service.Host.Logs.Events, e => e.Level == Serilog.Events.LogEventLevel.Error && e.Exception?.Message == Secret);
    }

    [Fact]
    public async Task AMessageOverFourMebibytesIsResourceExhaustedAndOneJustUnderIsRead()
    {
        var over = new PushChangesRequest { UserNo = 12 };
        over.Changes.Add(new PushedChange { Op = "upsert", BookNo = 5, Key = "big", Text = new string('x', 4 * 1024 * 1024) });
        var under = new PushChangesRequest { UserNo = 12 };
        under.Changes.Add(new PushedChange { Op = "upsert", BookNo = 5, Key = "big", Text = new string('x', (4 * 1024 * 1024) - 64) });

        var tooLarge = await Assert.ThrowsAsync<RpcException>(() => service.Host.Client.Sync.PushChangesAsync(
            over, GrpcTestClient.ToMetadata(As(12)), cancellationToken: TestTimeout.Token).ResponseAsync);
        var read = await service.Host.Client.Sync.PushChangesAsync(under, GrpcTestClient.ToMetadata(As(12)), cancellationToken: TestTimeout.Token);

        Assert.Equal(StatusCode.ResourceExhausted, tooLarge.StatusCode);
        // Read and judged by the application, which refuses a text over 10,000 characters: nothing is stored.
        Assert.Equal("rejected", Assert.Single(read.Results).Status);
    }

    private sealed class ThrowingStore : IDeviceReadStore
    {
        public Task<UserView?> FindUserAsync(UserNo user, CancellationToken cancellationToken) =>
            throw new InvalidOperationException(Secret);

        public Task<IReadOnlyList<HighlightView>?> ListHighlightsAsync(UserNo user, HighlightRange range, int limit, CancellationToken cancellationToken) =>
            throw new InvalidOperationException(Secret);
    }
}
