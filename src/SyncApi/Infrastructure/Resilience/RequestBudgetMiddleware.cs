using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>
/// Gives each request its database budget: <c>Resilience:RequestBudgetMs</c> from arrival. A gRPC
/// call's own deadline, when shorter, narrows it in <see cref="SyncApi.Grpc.GrpcErrorInterceptor"/>. A request
/// whose database call the open circuit refused is counted as shed (<c>circuit_open</c>).
/// </summary>
internal sealed class RequestBudgetMiddleware(
    RequestDelegate next, IOptions<ResilienceOptions> options, TimeProvider clock, SyncMetrics? metrics = null)
{
    public async Task InvokeAsync(HttpContext context)
    {
        var state = RequestBudget.Begin(clock.GetUtcNow() + TimeSpan.FromMilliseconds(options.Value.RequestBudgetMs));
        await next(context);
        if (state.CircuitRejected)
        {
            metrics?.RecordShedRequest(ShedReason.CircuitOpen, GrpcResponses.IsGrpc(context.Request) ? Protocols.Grpc : Protocols.Rest);
        }
    }
}
