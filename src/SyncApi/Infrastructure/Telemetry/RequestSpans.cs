using System.Diagnostics;
using OpenTelemetry.Instrumentation.AspNetCore;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// How ASP.NET Core's instrumentation shapes the request span: scrapes get none; the raw path (user
/// and book numbers) is dropped, since <c>http.route</c> names the endpoint; a gRPC call keeps the
/// <c>service/method</c> name <see cref="RequestTelemetryMiddleware"/> gave it, which the
/// instrumentation would otherwise replace with <c>POST /service/method</c> when the request ends.
/// </summary>
internal static class RequestSpans
{
    public static void Configure(AspNetCoreTraceInstrumentationOptions options)
    {
        options.Filter = context => !MetricsEndpoint.IsScrape(context.Request);
        options.EnrichWithHttpRequest = static (activity, _) => activity.SetTag("url.path", null);
        options.EnrichWithHttpResponse = static (activity, _) => KeepRpcName(activity);
    }

    private static void KeepRpcName(Activity activity)
    {
        if (activity.GetTagItem("rpc.system") is "grpc"
            && activity.GetTagItem("rpc.service") is string service
            && activity.GetTagItem("rpc.method") is string method)
        {
            activity.DisplayName = string.Concat(service, "/", method);
        }
    }
}
