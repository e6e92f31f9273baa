using System.Globalization;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.DeviceSimulator.Devices;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Grpc;

/// <summary>
/// A device's gRPC calls through the generated <see cref="SyncService.SyncServiceClient"/>: the token
/// in the <c>authorization</c> metadata, and the status as the retry policy sees it (UNAVAILABLE,
/// RESOURCE_EXHAUSTED, ABORTED and DEADLINE_EXCEEDED are retried, after the server's
/// <c>grpc-retry-pushback-ms</c> when given). The channel retries nothing itself: the device's retry
/// pipeline is the only retry layer.
/// </summary>
public sealed class GrpcDeviceClient(SyncService.SyncServiceClient client, DeviceTokens tokens)
{
    private const string PushbackTrailer = "grpc-retry-pushback-ms";

    public async ValueTask<SyncAttempt> CallAsync<TRequest, TResponse>(
        Func<SyncService.SyncServiceClient, TRequest, CallOptions, AsyncUnaryCall<TResponse>> method,
        TRequest request, long userNo, SimulatedDevice device, CancellationToken cancellationToken)
        where TResponse : class =>
        (await CallForAsync(method, request, userNo, device, cancellationToken)).Attempt;

    /// <summary>As <see cref="CallAsync"/>, with the response when the call succeeded.</summary>
    public async ValueTask<(SyncAttempt Attempt, TResponse? Response)> CallForAsync<TRequest, TResponse>(
        Func<SyncService.SyncServiceClient, TRequest, CallOptions, AsyncUnaryCall<TResponse>> method,
        TRequest request, long userNo, SimulatedDevice device, CancellationToken cancellationToken)
        where TResponse : class
    {
        var headers = new Metadata { { "authorization", "Bearer " + tokens.For(userNo, device) } };
        try
        {
            var response = await method(client, request, new CallOptions(headers, cancellationToken: cancellationToken));
            return (SyncAttempt.Success(), response);
        }
        catch (RpcException exception) when (exception.StatusCode != StatusCode.Cancelled || !cancellationToken.IsCancellationRequested)
        {
            return (Classify(exception), null);
        }
    }

    public static SyncAttempt Classify(RpcException exception)
    {
        var status = exception.StatusCode.ToString();
        if (exception.StatusCode
            is not (StatusCode.Unavailable or StatusCode.ResourceExhausted or StatusCode.Aborted or StatusCode.DeadlineExceeded))
        {
            return SyncAttempt.Permanent(status);
        }

        var pushback = exception.Trailers
            .Where(t => !t.IsBinary && t.Key.Equals(PushbackTrailer, StringComparison.OrdinalIgnoreCase))
            .Select(
                t => long.TryParse(t.Value, NumberStyles.None, CultureInfo.InvariantCulture, out var ms)
                    ? TimeSpan.FromMilliseconds(ms)
                    : (TimeSpan?)null)
            .FirstOrDefault();
        return SyncAttempt.Transient(status, pushback);
    }
}
