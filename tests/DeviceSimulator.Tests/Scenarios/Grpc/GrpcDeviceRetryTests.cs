using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Tests.EndToEnd;
using Kobo.Sync.DeviceSimulator.Tests.Support;

namespace Kobo.Sync.DeviceSimulator.Tests.Scenarios.Grpc;

/// <summary>The gRPC client in a whole run against a stub service: the device's retries are the only ones.</summary>
[Collection(EndToEndCollection.Name)]
public sealed class GrpcDeviceRetryTests
{
    [Fact]
    public async Task ADeviceWaitsTheServersPushbackBeforeCallingAgain()
    {
        // First answer: UNAVAILABLE with grpc-retry-pushback-ms: 1000; then a user. The device's own
        // backoff is 10 ms, so only the pushback explains a second call a second later.
        await using var server = await StubGrpcServer.StartAsync((call, _) => call == 1
            ? throw new RpcException(new Status(StatusCode.Unavailable, "draining"), new Metadata { { "grpc-retry-pushback-ms", "1000" } })
            : new User { UserNo = 1 });

        var result = await StubRuns.GrpcUserByIdAsync(server.Address, rate: 1, seconds: 1, maxConcurrency: 4, new DeviceBehaviour { TimeoutMs = 5_000, MaxRetries = 3, BaseDelayMs = 10, MaxDelayMs = 5_000 });

        var scenario = Assert.Single(result.Scenarios);
        Assert.Equal(1, scenario.Syncs);
        Assert.Equal(0, scenario.Failed);
        Assert.Equal(2, scenario.Attempts);
        var arrivals = server.Arrivals.ToArray();
        Assert.Equal(2, arrivals.Length);
        Assert.InRange((arrivals[1] - arrivals[0]).TotalMilliseconds, 950, 3_000);
        Assert.True(scenario.Latency.Max >= 950, "the wait is part of the sync's latency");
        Assert.All(server.Authorizations, token => Assert.StartsWith("Bearer ", token));
    }

    [Fact]
    public async Task EachDeviceAttemptIsOneCallSoTheChannelRetriesNothing()
    {
        await using var server = await StubGrpcServer.StartAsync((_, _) =>
            throw new RpcException(new Status(StatusCode.Unavailable, "down"), new Metadata { { "grpc-retry-pushback-ms", "0" } }));

        var result = await StubRuns.GrpcUserByIdAsync(server.Address, rate: 5, seconds: 1, maxConcurrency: 8, new DeviceBehaviour { TimeoutMs = 2_000, MaxRetries = 3, BaseDelayMs = 10, MaxDelayMs = 100 });

        var scenario = Assert.Single(result.Scenarios);
        Assert.Equal(5, scenario.Syncs);
        Assert.Equal(5, scenario.Failed);
        Assert.Equal(20, scenario.Attempts); // 1 + 3 retries each
        Assert.Equal(20, server.Arrivals.Count);
        Assert.False(result.Passed);
    }

    [Fact]
    public async Task AnAttemptCutOffByTheDevicesTimeoutIsRetriedAsOverRest()
    {
        // The first call outlasts the device's 300 ms timeout; the second is answered at once.
        await using var server = await StubGrpcServer.StartAsync((call, context) =>
        {
            if (call == 1)
            {
                Task.Delay(TimeSpan.FromSeconds(2), context.CancellationToken).ContinueWith(_ => { }, TaskScheduler.Default).Wait();
            }

            return new User { UserNo = 1 };
        });

        var result = await StubRuns.GrpcUserByIdAsync(server.Address, rate: 1, seconds: 1, maxConcurrency: 4, new DeviceBehaviour { TimeoutMs = 300, MaxRetries = 3, BaseDelayMs = 10, MaxDelayMs = 100 });

        var scenario = Assert.Single(result.Scenarios);
        Assert.Equal(1, scenario.Syncs);
        Assert.Equal(0, scenario.Failed);
        Assert.Equal(2, scenario.Attempts);
    }

    [Fact]
    public async Task AStatusTheServerRefusesForGoodIsNotRetried()
    {
        await using var server = await StubGrpcServer.StartAsync((_, _) =>
            throw new RpcException(new Status(StatusCode.PermissionDenied, "revoked")));

        var result = await StubRuns.GrpcUserByIdAsync(server.Address, rate: 3, seconds: 1, maxConcurrency: 8, new DeviceBehaviour { MaxRetries = 3, BaseDelayMs = 10 });

        var scenario = Assert.Single(result.Scenarios);
        Assert.Equal(3, scenario.Failed);
        Assert.Equal(3, scenario.Attempts);
        Assert.Equal(3, server.Arrivals.Count);
    }
}
