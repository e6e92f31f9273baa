using System.Globalization;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Over its capacity the service refuses what it cannot serve at once, and tells the device when to
/// come back, instead of queueing without bound: 503 / UNAVAILABLE for the instance, 429 /
/// RESOURCE_EXHAUSTED for one device over its own rate.
/// </summary>
public sealed class AdmissionControlTests(AdmissionControlTests.TightLimits service) : IClassFixture<AdmissionControlTests.TightLimits>
{
    private const long User = ServiceBehindFaultProxy.UnknownUser;

    /// <summary>One request at a time, no queue, two requests a second per device with a burst of three.</summary>
    public sealed class TightLimits : ServiceBehindFaultProxy
    {
        protected override IReadOnlyDictionary<string, string?> ExtraSettings => new Dictionary<string, string?>
        {
            ["Admission:ConcurrencyLimit"] = "1",
            ["Admission:QueueLimit"] = "0",
            ["Admission:PerDeviceRequestsPerSecond"] = "1",
            ["Admission:PerDeviceBurst"] = "3",
            ["Admission:OverloadRetryAfterMs"] = "1500",
            ["Resilience:RequestBudgetMs"] = "5000",
        };
    }

    [Fact]
    public async Task ADeviceOverItsRateGets429WithRetryAfterWhileAnotherDeviceIsServed()
    {
        var answers = new List<Answer>();
        for (var i = 0; i < 6; i++)
        {
            answers.Add(await RestGetUserAsync(service.Rest, User, "busy-rest-device"));
        }

        Assert.Equal(404, answers[0].Status); // served: the database said "no such user"
        var refused = answers.Where(a => a.Status == 429).ToList();
        Assert.True(refused.Count >= 2, $"statuses: {string.Join(",", answers.Select(a => a.Status))}");
        Assert.All(refused, a =>
        {
            Assert.Equal("application/problem+json", a.ContentType);
            Assert.NotNull(a.RetryAfter);
            Assert.Contains("\"retryAfterMs\":", a.Body, StringComparison.Ordinal);
        });
        Assert.Equal(404, (await RestGetUserAsync(service.Rest, User, "quiet-rest-device")).Status);
        Assert.Contains("reason=\"rate_limited\"", await service.Rest.GetStringAsync("/metrics"), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ADeviceRefusedForItsRateIsServedAgainOnceItsBucketRefills()
    {
        Answer last;
        var sent = 0;
        do
        {
            last = await RestGetUserAsync(service.Rest, User, "refilling-device");
            sent++;
        }
        while (last.Status != 429 && sent < 10);
        Assert.Equal(429, last.Status);

        // One token a second: after a little more than a second the device is served again.
        await Task.Delay(TimeSpan.FromMilliseconds(1_300));
        Assert.Equal(404, (await RestGetUserAsync(service.Rest, User, "refilling-device")).Status);
    }

    [Fact]
    public async Task ADeviceOverItsRateGetsResourceExhaustedWithRetryPushbackOverGrpc()
    {
        var answers = new List<GrpcAnswer>();
        for (var i = 0; i < 6; i++)
        {
            answers.Add(await GrpcGetUserAsync(service.Grpc, User, "busy-grpc-device"));
        }

        Assert.Equal(5, answers[0].Status); // NOT_FOUND: served
        var refused = answers.Where(a => a.Status == 8).ToList(); // RESOURCE_EXHAUSTED
        Assert.True(refused.Count >= 2, $"statuses: {string.Join(",", answers.Select(a => a.Status))}");
        Assert.All(refused, a => Assert.True(long.TryParse(a.RetryPushbackMs, out var ms) && ms > 0, $"pushback '{a.RetryPushbackMs}'"));
    }

    [Fact]
    public async Task OverCapacityTheServiceAnswers503WithRetryAfterOverRestAndUnavailableOverGrpc()
    {
        // A slow database keeps the one admitted request busy; the next ones find no slot and no queue.
        service.Proxy.Latency = TimeSpan.FromMilliseconds(800);
        try
        {
            var slow = RestGetUserAsync(service.Rest, User, "device-a");
            await Task.Delay(200);
            var rest = await RestGetUserAsync(service.Rest, User, "device-b");
            var grpc = await GrpcGetUserAsync(service.Grpc, User, "device-c");
            Assert.False(slow.IsCompleted, "the admitted request was still running");

            Assert.Equal(503, rest.Status);
            // 1500 ms spread up to twice it; the header rounds up to whole seconds.
            var restMs = RetryAfterMs(rest.Body);
            Assert.InRange(restMs, 1500, 3000);
            Assert.Equal(TimeSpan.FromSeconds(Math.Ceiling(restMs / 1000.0)), rest.RetryAfter);
            Assert.Equal(14, grpc.Status); // UNAVAILABLE
            Assert.InRange(long.Parse(grpc.RetryPushbackMs!, CultureInfo.InvariantCulture), 1500, 3000);
            Assert.Equal(404, (await slow).Status);
        }
        finally
        {
            await service.HealAsync();
        }
    }

    [Fact]
    public async Task ABurstFarBeyondCapacityIsShedAtOnceWhileTheAdmittedRequestIsServed()
    {
        service.Proxy.Latency = TimeSpan.FromMilliseconds(300);
        try
        {
            var burst = Enumerable.Range(0, 20).Select(i => RestGetUserAsync(service.Rest, User, $"burst-device-{i}")).ToList();
            var answers = await Task.WhenAll(burst);

            Assert.All(answers, a => Assert.True(a.Status is 404 or 503, $"status {a.Status}"));
            Assert.Contains(answers, a => a.Status == 404);
            Assert.True(answers.Count(a => a.Status == 503) >= 15, $"statuses: {string.Join(",", answers.Select(a => a.Status))}");
            Assert.All(answers.Where(a => a.Status == 503), a => Assert.NotNull(a.RetryAfter));
        }
        finally
        {
            await service.HealAsync();
        }
    }

    [Fact]
    public async Task HealthProbesAreAnsweredEvenWhenTheServiceIsFull()
    {
        service.Proxy.Latency = TimeSpan.FromMilliseconds(800);
        try
        {
            var slow = RestGetUserAsync(service.Rest, User, "device-d");
            await Task.Delay(200);
            using var live = await service.Rest.GetAsync("/healthz/live");
            Assert.Equal(System.Net.HttpStatusCode.OK, live.StatusCode);
            await slow;
        }
        finally
        {
            await service.HealAsync();
        }
    }

    private static long RetryAfterMs(string problem) =>
        JsonDocument.Parse(problem).RootElement.GetProperty("retryAfterMs").GetInt64();
}
