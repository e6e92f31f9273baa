using Kobo.Sync.SyncApi.Grpc.Wire;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>
/// Gives each request its database budget: <c>Resilience:RequestBudgetMs</c> from arrival, or the
/// gRPC call's own <c>grpc-timeout</c> when that is shorter. The wire binding enforces that deadline
/// itself and answers DEADLINE_EXCEEDED; the budget ends a little after it so that the deadline, not
/// the storage timeout, decides the status.
/// </summary>
internal sealed class RequestBudgetMiddleware(RequestDelegate next, IOptions<ResilienceOptions> options, TimeProvider clock)
{
    private static readonly TimeSpan DeadlineGrace = TimeSpan.FromMilliseconds(50);

    public Task InvokeAsync(HttpContext context)
    {
        var budget = TimeSpan.FromMilliseconds(options.Value.RequestBudgetMs);
        var header = context.Request.Headers[GrpcProtocol.TimeoutHeader];
        if (header.Count == 1 && GrpcTimeout.TryParse(header[0], out var timeout) && timeout + DeadlineGrace < budget)
        {
            budget = timeout + DeadlineGrace;
        }

        RequestBudget.Set(clock.GetUtcNow() + budget);
        return next(context);
    }
}
