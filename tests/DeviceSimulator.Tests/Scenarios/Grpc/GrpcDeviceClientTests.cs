using Grpc.Core;
using Kobo.Sync.DeviceSimulator.Scenarios.Grpc;

namespace Kobo.Sync.DeviceSimulator.Tests.Scenarios.Grpc;

[Trait("Category", "Fast")]
public sealed class GrpcDeviceClientTests
{
    [Theory]
    [InlineData(StatusCode.Unavailable)]
    [InlineData(StatusCode.ResourceExhausted)]
    [InlineData(StatusCode.Aborted)]
    [InlineData(StatusCode.DeadlineExceeded)]
    public void ATransientStatusIsRetriedWithTheDevicesOwnBackoff(StatusCode code)
    {
        var attempt = GrpcDeviceClient.Classify(new RpcException(new Status(code, "busy")));

        Assert.False(attempt.Ok);
        Assert.True(attempt.Retryable);
        Assert.Equal(code.ToString(), attempt.Status);
        Assert.Null(attempt.RetryAfter);
    }

    [Fact]
    public void TheServersPushbackTrailerSetsTheWaitBeforeTheRetry()
    {
        var trailers = new Metadata { { "grpc-retry-pushback-ms", "1500" } };

        var attempt = GrpcDeviceClient.Classify(new RpcException(new Status(StatusCode.ResourceExhausted, "slow down"), trailers));

        Assert.True(attempt.Retryable);
        Assert.Equal("ResourceExhausted", attempt.Status);
        Assert.Equal(TimeSpan.FromMilliseconds(1500), attempt.RetryAfter);
    }

    [Theory]
    [InlineData("-1")]
    [InlineData("soon")]
    [InlineData("")]
    public void AnUnreadablePushbackLeavesTheDevicesOwnBackoff(string value)
    {
        var trailers = new Metadata { { "grpc-retry-pushback-ms", value } };

        var attempt = GrpcDeviceClient.Classify(new RpcException(new Status(StatusCode.Unavailable, "down"), trailers));

        Assert.True(attempt.Retryable);
        Assert.Null(attempt.RetryAfter);
    }

    [Theory]
    [InlineData(StatusCode.Unauthenticated)]
    [InlineData(StatusCode.PermissionDenied)]
    [InlineData(StatusCode.NotFound)]
    [InlineData(StatusCode.InvalidArgument)]
    [InlineData(StatusCode.Internal)]
    [InlineData(StatusCode.Unknown)]
    [InlineData(StatusCode.Cancelled)]
    public void AnyOtherStatusFailsForGoodEvenWithAPushback(StatusCode code)
    {
        var trailers = new Metadata { { "grpc-retry-pushback-ms", "10" } };

        var attempt = GrpcDeviceClient.Classify(new RpcException(new Status(code, "no"), trailers));

        Assert.False(attempt.Ok);
        Assert.False(attempt.Retryable);
        Assert.Equal(code.ToString(), attempt.Status);
        Assert.Null(attempt.RetryAfter);
    }
}
