using Microsoft.AspNetCore.Diagnostics;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>The endpoint a finished request is recorded and logged under.</summary>
internal static class AnsweringEndpoint
{
    /// <summary>An error answer is re-executed without the endpoint; the exception handler's feature still names it.</summary>
    public static Endpoint? Of(HttpContext context) =>
        context.GetEndpoint() ?? context.Features.Get<IExceptionHandlerFeature>()?.Endpoint;
}
