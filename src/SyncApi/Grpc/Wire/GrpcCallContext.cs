namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>What a unary handler knows of its call besides the request message.</summary>
public sealed class GrpcCallContext(HttpContext httpContext, string method, DateTimeOffset? deadline, CancellationToken cancellationToken)
{
    public HttpContext HttpContext { get; } = httpContext;

    /// <summary>The full method name, <c>/package.Service/Method</c>.</summary>
    public string Method { get; } = method;

    /// <summary>When the client stops waiting (from <c>grpc-timeout</c>); null when it sent none.</summary>
    public DateTimeOffset? Deadline { get; } = deadline;

    /// <summary>Cancelled when the deadline passes or the client cancels; pass it to every call the handler makes.</summary>
    public CancellationToken CancellationToken { get; } = cancellationToken;

    /// <summary>A request metadata value (an ASCII header), or null.</summary>
    public string? GetMetadata(string key)
    {
        var values = HttpContext.Request.Headers[key];
        return values.Count == 0 ? null : values.ToString();
    }
}
