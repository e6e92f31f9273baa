using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// Records what a device request's answer holds, once per request, for the REST endpoints of a group: the
/// highlights of a page (<c>kobo.sync.highlights.per_page</c>, by the handler's name as endpoint), a push's
/// results (<c>kobo.sync.push.changes</c>) and the pages of a finished pull (<c>kobo.sync.pull.pages</c>).
/// gRPC records the same from its messages (<see cref="Grpc.GrpcResultMetricsInterceptor"/>). An endpoint whose
/// answer holds none of them runs without the filter.
/// </summary>
internal static class ResultMetricsFilter
{
    public static RouteGroupBuilder WithResultMetrics(this RouteGroupBuilder group) => group.AddEndpointFilterFactory(Create);

    private static EndpointFilterDelegate Create(EndpointFilterFactoryContext context, EndpointFilterDelegate next)
    {
        var answer = AnswerValueType(context.MethodInfo.ReturnType);
        if (answer != typeof(HighlightPage) && answer != typeof(PushResponse) && answer != typeof(SyncChangePage))
        {
            return next;
        }

        var endpoint = context.MethodInfo.Name;
        var metrics = context.ApplicationServices.GetRequiredService<SyncMetrics>();
        return async invocation =>
        {
            var result = await next(invocation);
            switch ((result as IValueHttpResult)?.Value)
            {
                case HighlightPage page:
                    metrics.RecordHighlightsPage(endpoint, Protocols.Rest, page.Items.Count);
                    break;
                case PushResponse push:
                    metrics.RecordPushResults(push.Results);
                    break;
                case SyncChangePage { HasMore: false } pull:
                    metrics.RecordPullPagesPerSync(Protocols.Rest, pull.PageOfSync);
                    break;
            }

            return result;
        };
    }

    /// <summary>The value a handler answers with: <c>T</c> of <c>Task&lt;Ok&lt;T&gt;&gt;</c> and the like.</summary>
    private static Type? AnswerValueType(Type returned)
    {
        if (returned.IsGenericType
            && (returned.GetGenericTypeDefinition() == typeof(Task<>) || returned.GetGenericTypeDefinition() == typeof(ValueTask<>)))
        {
            returned = returned.GetGenericArguments()[0];
        }

        return returned.GetInterfaces()
            .FirstOrDefault(i => i.IsGenericType && i.GetGenericTypeDefinition() == typeof(IValueHttpResult<>))
            ?.GetGenericArguments()[0];
    }
}
