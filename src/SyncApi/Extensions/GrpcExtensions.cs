using Kobo.Sync.SyncApi.Grpc;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>
/// The device gRPC API on Grpc.AspNetCore: <c>kobo.sync.v1.SyncService</c>, the standard
/// <c>grpc.health.v1.Health</c> (the readiness checks) and server reflection, served on the gRPC
/// listener only (<see cref="ListenerSurfaceMatcherPolicy"/>).
/// </summary>
public static class GrpcExtensions
{

    public static WebApplicationBuilder AddSyncGrpc(this WebApplicationBuilder builder)
    {
        builder.Services.AddGrpc(options =>
        {
            options.MaxReceiveMessageSize = GrpcResponses.MaxReceiveMessageSize;
            options.EnableDetailedErrors = false;
            // The first is the outermost: the result's metrics are recorded inside the error mapping.
            options.Interceptors.Add<GrpcErrorInterceptor>();
            options.Interceptors.Add<GrpcResultMetricsInterceptor>();
        });
        builder.Services.AddSingleton<GrpcResultMetricsInterceptor>();
        builder.Services.AddGrpcReflection();
        builder.Services.AddGrpcHealthChecks(options =>
        {
            // The server ("") and the sync service are as healthy as the readiness checks; the
            // liveness of the process is not a gRPC question.
            options.Services.Clear();
            options.Services.Map(string.Empty, check => check.Tags.Contains(ServiceDefaultsExtensions.ReadyTag));
            options.Services.Map(SyncGrpcService.ServiceName, check => check.Tags.Contains(ServiceDefaultsExtensions.ReadyTag));
        });
        builder.Services.TryAddEnumerable(ServiceDescriptor.Singleton<MatcherPolicy, ListenerSurfaceMatcherPolicy>());
        return builder;
    }

    /// <summary>
    /// Last before the endpoints: the anonymous health service's bounds (<see cref="HealthCallLimitsMiddleware"/>),
    /// and a request message Grpc.AspNetCore cannot read is INVALID_ARGUMENT.
    /// </summary>
    public static WebApplication UseSyncGrpc(this WebApplication app)
    {
        app.UseMiddleware<HealthCallLimitsMiddleware>();
        app.UseMiddleware<UnreadableRequestMiddleware>();
        return app;
    }

    public static WebApplication MapSyncGrpc(this WebApplication app)
    {
        // The listeners decide which endpoints answer where: a bad Endpoints setting stops the start
        // here, naming its key, before anything is mapped or any host service has started.
        _ = app.Services.GetRequiredService<IOptions<EndpointsOptions>>().Value;

        // The conventions reach every endpoint a mapping creates, its unimplemented-method answers included.
        app.MapGrpcService<SyncGrpcService>().WithMetadata(GrpcSurfaceMetadata.Instance);
        app.MapGrpcHealthChecksService().WithMetadata(GrpcSurfaceMetadata.Instance);
        // Reflection needs a device token, as the API it describes does; health stays anonymous for probes.
        app.MapGrpcReflectionService().WithMetadata(GrpcSurfaceMetadata.Instance).RequireAuthorization();
        // Any other path on the gRPC listener is a method this server does not have (a REST path included).
        app.MapFallback("{**path}", GrpcResponses.UnknownMethodAsync)
            .WithDisplayName("gRPC unknown method")
            .WithMetadata(GrpcSurfaceMetadata.Instance)
            .ExcludeFromDescription();
        return app;
    }
}
