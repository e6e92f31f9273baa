using System.Net;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Tests.EndToEnd;
using Kobo.Sync.DeviceSimulator.Tests.Support;
using Microsoft.AspNetCore.Http;

namespace Kobo.Sync.DeviceSimulator.Tests.Devices;

[Collection(EndToEndCollection.Name)]
public sealed class DeviceRetryTests
{
    [Fact]
    public async Task ADeviceWaitsTheServersRetryAfterBeforeTryingAgain()
    {
        // First answer: 503 with Retry-After: 1; then 200. The device's own backoff is 10 ms, so only
        // Retry-After explains a second attempt a second later.
        await using var server = await StubDeviceServer.StartAsync(async (context, count) =>
        {
            if (count == 1)
            {
                context.Response.StatusCode = (int)HttpStatusCode.ServiceUnavailable;
                context.Response.Headers.RetryAfter = "1";
                return;
            }

            await context.Response.WriteAsync("{}");
        });

        var result = await StubRuns.UserByIdAsync(server.Address, rate: 1, seconds: 1, maxConcurrency: 4, new DeviceBehaviour { TimeoutMs = 5_000, MaxRetries = 3, BaseDelayMs = 10, MaxDelayMs = 5_000 });

        var scenario = Assert.Single(result.Scenarios);
        Assert.Equal(1, scenario.Syncs);
        Assert.Equal(0, scenario.Failed);
        Assert.Equal(2, scenario.Attempts);
        var arrivals = server.Arrivals.ToArray();
        Assert.Equal(2, arrivals.Length);
        Assert.InRange((arrivals[1] - arrivals[0]).TotalMilliseconds, 950, 3_000);
        Assert.True(scenario.Latency.Max >= 950, "the wait is part of the sync's latency");
    }

    [Fact]
    public async Task ADeviceGivesUpAfterItsRetriesAndTheSyncCountsAsFailed()
    {
        await using var server = await StubDeviceServer.StartAsync((context, _) =>
        {
            context.Response.StatusCode = StatusCodes.Status429TooManyRequests;
            context.Response.Headers.RetryAfter = "0";
            return Task.CompletedTask;
        });

        var result = await StubRuns.UserByIdAsync(server.Address, rate: 5, seconds: 1, maxConcurrency: 8, new DeviceBehaviour { TimeoutMs = 2_000, MaxRetries = 3, BaseDelayMs = 10, MaxDelayMs = 100 });

        var scenario = Assert.Single(result.Scenarios);
        Assert.Equal(5, scenario.Syncs);
        Assert.Equal(5, scenario.Failed);
        Assert.Equal(20, scenario.Attempts); // 1 + 3 retries each
        Assert.Equal(20, server.Arrivals.Count);
        Assert.False(result.Passed);
        Assert.Contains(result.Checks, c => c.Metric == "failed syncs %" && !c.Passed && c.Actual == 100);
    }

    [Fact]
    public async Task ARequestTheServerRefusesForGoodIsNotRetried()
    {
        await using var server = await StubDeviceServer.StartAsync((context, _) =>
        {
            context.Response.StatusCode = StatusCodes.Status403Forbidden;
            return Task.CompletedTask;
        });

        var result = await StubRuns.UserByIdAsync(server.Address, rate: 3, seconds: 1, maxConcurrency: 8, new DeviceBehaviour { MaxRetries = 3, BaseDelayMs = 10 });

        var scenario = Assert.Single(result.Scenarios);
        Assert.Equal(3, scenario.Failed);
        Assert.Equal(3, scenario.Attempts);
        Assert.Equal(SlaGate.FailedExitCode, result.Passed ? 0 : SlaGate.FailedExitCode);
    }
}
