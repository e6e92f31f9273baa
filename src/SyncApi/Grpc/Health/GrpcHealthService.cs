using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Grpc.Health.V1;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Kobo.Sync.SyncApi.Grpc.Health;

/// <summary>
/// <c>grpc.health.v1.Health/Check</c>: SERVING while the health checks tagged "ready" pass
/// (Healthy or Degraded), NOT_SERVING otherwise. The same answer for the server ("") and every
/// named service, since they share one process and one store; an unknown name is NOT_FOUND.
/// </summary>
public static class GrpcHealthService
{
    public const string ServiceName = "grpc.health.v1.Health";

    /// <summary>Maps Check without authentication; <paramref name="services"/> are the names besides "".</summary>
    public static IEndpointConventionBuilder MapGrpcHealth(this IEndpointRouteBuilder endpoints, params string[] services)
    {
        var known = new HashSet<string>(services, StringComparer.Ordinal) { string.Empty };
        return endpoints.MapGrpcUnary<HealthCheckRequest, HealthCheckResponse>(
            ServiceName, "Check", HealthCheckRequest.Parser, (request, call) => CheckAsync(request, call, known));
    }

    private static async Task<HealthCheckResponse> CheckAsync(HealthCheckRequest request, GrpcCallContext call, HashSet<string> known)
    {
        if (!known.Contains(request.Service))
        {
            throw new RpcException(StatusCode.NotFound, $"Unknown service '{request.Service}'.");
        }

        var checks = call.HttpContext.RequestServices.GetRequiredService<HealthCheckService>();
        var report = await checks.CheckHealthAsync(r => r.Tags.Contains(ServiceDefaultsExtensions.ReadyTag), call.CancellationToken);
        return new HealthCheckResponse
        {
            Status = report.Status == HealthStatus.Unhealthy
                ? HealthCheckResponse.Types.ServingStatus.NotServing
                : HealthCheckResponse.Types.ServingStatus.Serving,
        };
    }
}
