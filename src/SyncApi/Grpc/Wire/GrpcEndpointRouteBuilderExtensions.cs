using Google.Protobuf;
using Microsoft.AspNetCore.Routing.Matching;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>Registration and endpoint mapping of the gRPC binding.</summary>
public static class GrpcEndpointRouteBuilderExtensions
{
    public static IServiceCollection AddGrpcWire(this IServiceCollection services, Action<GrpcWireOptions>? configure = null)
    {
        var options = services.AddOptions<GrpcWireOptions>();
        if (configure is not null)
        {
            options.Configure(configure);
        }

        services.TryAddEnumerable(ServiceDescriptor.Singleton<MatcherPolicy, LocalPortMatcherPolicy>());
        return services;
    }

    /// <summary>Maps <c>POST /{service}/{method}</c> to a unary handler.</summary>
    public static IEndpointConventionBuilder MapGrpcUnary<TRequest, TResponse>(
        this IEndpointRouteBuilder endpoints,
        string service,
        string method,
        MessageParser<TRequest> parser,
        Func<TRequest, GrpcCallContext, Task<TResponse>> handler)
        where TRequest : IMessage<TRequest>
        where TResponse : IMessage<TResponse>
    {
        ArgumentException.ThrowIfNullOrEmpty(service);
        ArgumentException.ThrowIfNullOrEmpty(method);
        var fullName = $"/{service}/{method}";
        // Any HTTP method reaches the dispatcher, which answers a non-POST itself.
        return endpoints.Map(fullName, http => UnaryCallDispatcher.HandleAsync(http, fullName, parser, handler))
            .WithDisplayName($"gRPC {fullName}");
    }

    /// <summary>Every other path: Trailers-Only UNIMPLEMENTED, as a gRPC server answers an unknown method.</summary>
    public static IEndpointConventionBuilder MapGrpcUnknownMethods(this IEndpointRouteBuilder endpoints) =>
        endpoints.MapFallback("{**path}", UnaryCallDispatcher.HandleUnknownMethodAsync)
            .WithDisplayName("gRPC unknown method");

    /// <summary>Restricts endpoints to connections accepted on <paramref name="port"/>.</summary>
    public static TBuilder RequireLocalPort<TBuilder>(this TBuilder builder, int port)
        where TBuilder : IEndpointConventionBuilder =>
        builder.WithMetadata(new LocalPortMetadata(port));
}
