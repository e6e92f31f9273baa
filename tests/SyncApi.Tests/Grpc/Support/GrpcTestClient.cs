using System.Net;
using Google.Protobuf;
using Grpc.Core;
using Grpc.Net.Client;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Grpc;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Support;

/// <summary>
/// Grpc.Net.Client over one h2c channel to a gRPC listener: the generated <see cref="SyncService.SyncServiceClient"/>,
/// and a call by method name for tests that send a method the contract does not have.
/// </summary>
public sealed class GrpcTestClient : IDisposable
{
    private readonly GrpcChannel _channel;

    public GrpcTestClient(Uri address)
    {
        _channel = GrpcChannel.ForAddress(address, new GrpcChannelOptions
        {
            HttpHandler = new SocketsHttpHandler { EnableMultipleHttp2Connections = true },
            // The tests judge the service's answers; the client's own retries would hide them.
            MaxRetryAttempts = 0,
        });
        Sync = new SyncService.SyncServiceClient(_channel);
    }

    public SyncService.SyncServiceClient Sync { get; }

    public CallInvoker Invoker => _channel.CreateCallInvoker();

    public async Task<TResponse> UnaryAsync<TRequest, TResponse>(
        string service,
        string method,
        TRequest request,
        MessageParser<TResponse> parser,
        IEnumerable<KeyValuePair<string, string>>? metadata = null,
        DateTimeOffset? deadline = null,
        CancellationToken cancellationToken = default)
        where TRequest : class, IMessage
        where TResponse : class, IMessage<TResponse>
    {
        var call = new Method<TRequest, TResponse>(
            MethodType.Unary,
            service,
            method,
            Marshallers.Create<TRequest>(r => r.ToByteArray(), _ => throw new NotSupportedException("requests are only sent")),
            Marshallers.Create<TResponse>(r => r.ToByteArray(), parser.ParseFrom));
        return await _channel.CreateCallInvoker().AsyncUnaryCall(call, null, Options(metadata, deadline, cancellationToken), request);
    }

    /// <summary>PushChanges of <paramref name="changes"/> as a device of <paramref name="user"/>.</summary>
    public Task<PushChangesResponse> PushAsync(long user, params PushedChange[] changes) => PushAsync(user, string.Empty, changes);

    /// <summary>PushChanges with the device's sync token (<c>since</c>; empty for none).</summary>
    public Task<PushChangesResponse> PushAsync(long user, string since, params PushedChange[] changes)
    {
        var request = new PushChangesRequest { UserNo = user, Since = since };
        request.Changes.AddRange(changes);
        return UnaryAsync(SyncGrpcService.ServiceName, "PushChanges", request, PushChangesResponse.Parser,
            metadata: SyncGrpcTestHost.As(user), cancellationToken: Kobo.Sync.SyncApi.Tests.Support.TestTimeout.Token);
    }

    internal static CallOptions Options(IEnumerable<KeyValuePair<string, string>>? metadata, DateTimeOffset? deadline, CancellationToken cancellationToken) =>
        new(ToMetadata(metadata), deadline?.UtcDateTime, cancellationToken);

    /// <summary>Grpc.Core's metadata from key/value pairs (such as <see cref="SyncGrpcTestHost.As"/>).</summary>
    public static Metadata ToMetadata(IEnumerable<KeyValuePair<string, string>>? pairs)
    {
        var metadata = new Metadata();
        foreach (var (key, value) in pairs ?? [])
        {
            metadata.Add(key, value);
        }

        return metadata;
    }

    /// <summary>An HttpClient that speaks h2c with prior knowledge to <paramref name="address"/>, for hand-built requests.</summary>
    public static HttpClient NewHttpClient(Uri address) => new(new SocketsHttpHandler())
    {
        BaseAddress = address,
        DefaultRequestVersion = HttpVersion.Version20,
        DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
        Timeout = TimeSpan.FromSeconds(30),
    };

    public void Dispose() => _channel.Dispose();
}
