using Kobo.Sync.SyncApi.Grpc;
using Kobo.Sync.SyncApi.Grpc.Health;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>The device gRPC API: <c>kobo.sync.v1.SyncService</c> and <c>grpc.health.v1.Health</c>, on the gRPC listener only.</summary>
public static class GrpcExtensions
{
    public static WebApplicationBuilder AddSyncGrpc(this WebApplicationBuilder builder)
    {
        builder.Services.AddGrpcWire(options => options.MapException = SyncGrpcErrors.ToStatus);
        return builder;
    }

    public static WebApplication MapSyncGrpc(this WebApplication app)
    {
        var grpcUrl = app.Services.GetRequiredService<IOptions<EndpointsOptions>>().Value.Grpc;
        if (!ListenAddress.TryParse(grpcUrl, out var address, out var error))
        {
            throw new InvalidOperationException($"{EndpointsOptions.SectionName}:{nameof(EndpointsOptions.Grpc)}: {error}");
        }

        // Only connections accepted on the gRPC port reach these; REST keeps its own 404s.
        var grpc = app.MapGroup(string.Empty).RequireLocalPort(address.Port);
        grpc.MapGrpcHealth(SyncGrpcService.ServiceName);
        SyncGrpcService.Map(grpc);
        grpc.MapGrpcUnknownMethods();
        return app;
    }
}
