using System.Collections.Concurrent;
using Grpc.Core;
using Grpc.Core.Interceptors;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;

namespace Kobo.Sync.SyncApi.Grpc;

/// <summary>
/// Records what a call's answer holds, once per answer, for every method: the highlights of a page
/// (<c>kobo.sync.highlights.per_page</c>, by method name as endpoint), a push's results
/// (<c>kobo.sync.push.changes</c>) and the pages of a finished pull or of a watch's backlog
/// (<c>kobo.sync.pull.pages</c>), each message of a watch once it is written. REST records the same from its
/// answers (<see cref="Apis.ResultMetricsFilter"/>). Inside <see cref="GrpcErrorInterceptor"/>: a call whose
/// handler answered is recorded even if its deadline then turns it into DEADLINE_EXCEEDED.
/// </summary>
internal sealed class GrpcResultMetricsInterceptor(SyncMetrics metrics) : Interceptor
{
    private static readonly ConcurrentDictionary<string, string> MethodNames = new(StringComparer.Ordinal);

    public override async Task<TResponse> UnaryServerHandler<TRequest, TResponse>(
        TRequest request, ServerCallContext context, UnaryServerMethod<TRequest, TResponse> continuation)
    {
        var response = await continuation(request, context);
        Record(response, context);
        return response;
    }

    public override Task ServerStreamingServerHandler<TRequest, TResponse>(
        TRequest request, IServerStreamWriter<TResponse> responseStream, ServerCallContext context,
        ServerStreamingServerMethod<TRequest, TResponse> continuation) =>
        typeof(TResponse) == typeof(WatchChangesResponse)
            ? continuation(request, new RecordingWriter<TResponse>(responseStream, this, context), context)
            : continuation(request, responseStream, context);

    private void Record<TResponse>(TResponse response, ServerCallContext context)
    {
        switch (response)
        {
            case Contracts.Grpc.V1.HighlightPage page:
                metrics.RecordHighlightsPage(MethodName(context.Method), Protocols.Grpc, page.Items.Count);
                break;
            case PushChangesResponse push:
                metrics.RecordPushResults(push.Results, static r => r.Status);
                break;
            case PullChangesResponse { HasMore: false } pull:
                metrics.RecordPullPagesPerSync(Protocols.Grpc, pull.PageOfSync);
                break;
            case WatchChangesResponse { Heartbeat: false, HasMore: false } watch when watch.Changes.Count > 0:
                metrics.RecordPullPagesPerSync(Protocols.Grpc, watch.PageOfSync);
                break;
        }
    }

    // "/kobo.sync.v1.SyncService/ListUserHighlights" -> "ListUserHighlights", the endpoint tag REST gives the same read.
    private static string MethodName(string method) => MethodNames.GetOrAdd(method, static m => m[(m.LastIndexOf('/') + 1)..]);

    /// <summary>Records each message once it is written, as the handler wrote it.</summary>
    private sealed class RecordingWriter<TResponse>(
        IServerStreamWriter<TResponse> inner, GrpcResultMetricsInterceptor interceptor, ServerCallContext context)
        : IServerStreamWriter<TResponse>
    {
        public WriteOptions? WriteOptions
        {
            get => inner.WriteOptions;
            set => inner.WriteOptions = value;
        }

        public async Task WriteAsync(TResponse message)
        {
            await inner.WriteAsync(message);
            interceptor.Record(message, context);
        }

        public async Task WriteAsync(TResponse message, CancellationToken cancellationToken)
        {
            await inner.WriteAsync(message, cancellationToken);
            interceptor.Record(message, context);
        }
    }
}
