using System.Globalization;
using Google.Protobuf;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Grpc.Wire.Client;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Grpc;

/// <summary>
/// A device's gRPC calls through the service's own client: the token in the <c>authorization</c>
/// metadata, and the status as the retry policy sees it (UNAVAILABLE, RESOURCE_EXHAUSTED, ABORTED
/// and DEADLINE_EXCEEDED are retried, after the server's <c>grpc-retry-pushback-ms</c> when given).
/// </summary>
public sealed class GrpcDeviceClient(GrpcUnaryClient client, DeviceTokens tokens)
{
    public const string Service = "kobo.sync.v1.SyncService";

    public async ValueTask<SyncAttempt> CallAsync<TRequest, TResponse>(
        string method, TRequest request, MessageParser<TResponse> parser, long userNo, SimulatedDevice device, CancellationToken cancellationToken)
        where TRequest : IMessage
        where TResponse : class, IMessage<TResponse> =>
        (await CallForAsync(method, request, parser, userNo, device, cancellationToken)).Attempt;

    /// <summary>As <see cref="CallAsync"/>, with the response when the call succeeded.</summary>
    public async ValueTask<(SyncAttempt Attempt, TResponse? Response)> CallForAsync<TRequest, TResponse>(
        string method, TRequest request, MessageParser<TResponse> parser, long userNo, SimulatedDevice device, CancellationToken cancellationToken)
        where TRequest : IMessage
        where TResponse : class, IMessage<TResponse>
    {
        KeyValuePair<string, string>[] metadata = [new("authorization", "Bearer " + tokens.For(userNo, device))];
        try
        {
            var response = await client.UnaryAsync(Service, method, request, parser, metadata, cancellationToken: cancellationToken);
            return (SyncAttempt.Success(), response);
        }
        catch (RpcException exception) when (exception.Status != StatusCode.Cancelled || !cancellationToken.IsCancellationRequested)
        {
            return (Classify(exception), null);
        }
    }

    public static SyncAttempt Classify(RpcException exception)
    {
        var status = exception.Status.ToString();
        if (exception.Status is not (StatusCode.Unavailable or StatusCode.ResourceExhausted or StatusCode.Aborted or StatusCode.DeadlineExceeded))
        {
            return SyncAttempt.Permanent(status);
        }

        var pushback = exception.Trailers
            .Where(t => t.Key.Equals("grpc-retry-pushback-ms", StringComparison.OrdinalIgnoreCase))
            .Select(t => long.TryParse(t.Value, NumberStyles.None, CultureInfo.InvariantCulture, out var ms) ? TimeSpan.FromMilliseconds(ms) : (TimeSpan?)null)
            .FirstOrDefault();
        return SyncAttempt.Transient(status, pushback);
    }
}
