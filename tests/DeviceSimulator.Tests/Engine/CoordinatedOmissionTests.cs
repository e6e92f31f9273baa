using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Tests.EndToEnd;
using Kobo.Sync.DeviceSimulator.Tests.Support;
using Microsoft.AspNetCore.Http;

namespace Kobo.Sync.DeviceSimulator.Tests.Engine;

[Collection(EndToEndCollection.Name)]
public sealed class CoordinatedOmissionTests
{
    [Fact]
    public async Task AServerThatStallsForTwoSecondsIsReportedWithItsRealQueueingDelay()
    {
        // The server answers nothing for two seconds from the first request, then everything at once.
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var stalled = 0;
        await using var server = await StubDeviceServer.StartAsync(async (context, count) =>
        {
            if (Interlocked.Exchange(ref stalled, 1) == 0)
            {
                _ = Task.Delay(TimeSpan.FromSeconds(2)).ContinueWith(t => release.TrySetResult(), TaskScheduler.Default);
            }

            await release.Task;
            await context.Response.WriteAsync("{}");
        });

        // 20 syncs/s for 3 s with at most 4 in flight: a closed-loop tool would send 4 requests into
        // the stall, wait, and report the other 56 as fast. The syncs meant to start during the stall
        // (about 40, evenly spread) really waited from 2 s down to 0 s.
        var result = await StubRuns.UserByIdAsync(server.Address, rate: 20, seconds: 3, maxConcurrency: 4, new DeviceBehaviour { TimeoutMs = 10_000, MaxRetries = 0 });

        var scenario = Assert.Single(result.Scenarios);
        Assert.Equal(60, scenario.Syncs);
        Assert.Equal(0, scenario.Failed);
        Assert.True(scenario.Latency.Max >= 1_800, $"max {scenario.Latency.Max} ms: the first sync waited out the stall");
        Assert.True(scenario.Latency.P50 > 300, $"p50 {scenario.Latency.P50} ms: the queue behind the stall is counted");
        Assert.True(scenario.Latency.P75 > 900, $"p75 {scenario.Latency.P75} ms");
    }
}
