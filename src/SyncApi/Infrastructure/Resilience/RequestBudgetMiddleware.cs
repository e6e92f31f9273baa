using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>
/// Gives each request its database budget: <c>Resilience:RequestBudgetMs</c> from arrival, or the
/// gRPC call's own <c>grpc-timeout</c> when that is shorter. The wire binding enforces that deadline
/// itself and answers DEADLINE_EXCEEDED; the budget ends a little after it so that the deadline, not
/// the storage timeout, decides the status. A request whose database call the open circuit refused
/// is counted as shed (<c>circuit_open</c>).
/// </summary>
internal sealed class RequestBudgetMiddleware(RequestDelegate next, IOptions<ResilienceOptions> options, TimeProvider clock, SyncMetrics? metrics = null)
{
    private static readonly TimeSpan DeadlineGrace = TimeSpan.FromMilliseconds(50);

    public async Task InvokeAsync(HttpContext context)
    {
        var budget = TimeSpan.FromMilliseconds(options.Value.RequestBudgetMs);
        var header = context.Request.Headers[GrpcProtocol.TimeoutHeader];
        if (header.Count == 1 && GrpcTimeout.TryParse(header[0], out var timeout) && timeout + DeadlineGrace < budget)
        {
            budget = timeout + DeadlineGrace;
        }

        var state = RequestBudget.Begin(clock.GetUtcNow() + budget);
        await next(context);
        if (state.CircuitRejected)
        {
            metrics?.RecordShedRequest(
                ShedReason.CircuitOpen,
                GrpcProtocol.IsGrpcContentType(context.Request.ContentType) ? Protocols.Grpc : Protocols.Rest);
        }
    }
}
