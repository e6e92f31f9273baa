using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Devices arriving at about three times what the service admits: the excess is refused at once
/// with Retry-After instead of queueing, the admitted requests keep their speed, and the process's
/// memory does not grow with the load it refuses.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class OverloadTests(OverloadTests.SmallCapacity service, ITestOutputHelper output) : IClassFixture<OverloadTests.SmallCapacity>
{
    private const long User = ServiceBehindFaultProxy.UnknownUser;

    // A slower database (the proxy delays every packet) makes each admitted read take some tens of
    // milliseconds, so that two slots serve a rate the test can offer three times over.
    private const int Slots = 2;
    private static readonly TimeSpan DatabaseLatency = TimeSpan.FromMilliseconds(10);
    private static readonly TimeSpan LoadTime = TimeSpan.FromSeconds(5);

    /// <summary>Two requests at a time, one waiting; no per-device limit in the way.</summary>
    public sealed class SmallCapacity : ServiceBehindFaultProxy
    {
        protected override IReadOnlyDictionary<string, string?> ExtraSettings => new Dictionary<string, string?>
        {
            ["Admission:ConcurrencyLimit"] = Slots.ToString(System.Globalization.CultureInfo.InvariantCulture),
            ["Admission:QueueLimit"] = "1",
            ["Admission:OverloadRetryAfterMs"] = "1000",
            ["Resilience:RequestBudgetMs"] = "1000",
        };
    }

    [Fact]
    public async Task ThreeTimesTheCapacityIsShedWithRetryAfterWhileAdmittedRequestsStayFastAndMemoryStaysBounded()
    {
        await service.HealAsync(); // warm: connections open, code paths jitted
        var heapBefore = SettledHeapBytes();
        service.Proxy.Latency = DatabaseLatency;
        List<Answer> answers;
        double aloneMs;
        try
        {
            // Capacity: the slots over the time one read takes alone; three times that arrive.
            var alone = new List<double>();
            for (var i = 0; i < 10; i++)
            {
                alone.Add((await RestGetUserAsync(service.Rest, User, "calibration-device")).Elapsed.TotalMilliseconds);
            }

            aloneMs = alone.Order().ElementAt(5);
            var capacity = Slots * 1000 / aloneMs;
            var arrival = TimeSpan.FromMilliseconds(1000 / (3 * capacity));
            output.WriteLine($"one read alone {alone.Order().ElementAt(5):F0} ms: capacity about {capacity:F0} requests/s, offered {3 * capacity:F0}/s");
            answers = [.. await SteadyArrivals.SendAsync(
                arrival, (_, elapsed) => elapsed < LoadTime, (i, _) => RestGetUserAsync(service.Rest, User, $"overload-device-{i % 500}"))];
        }
        finally
        {
            await service.HealAsync();
        }

        var heapAfter = SettledHeapBytes();
        var admitted = answers.Where(a => a.Status == 404).Select(a => a.Elapsed.TotalMilliseconds).Order().ToList();
        var shed = answers.Where(a => a.Status is 503 or 429).ToList();
        var p99 = admitted.Count == 0 ? 0 : admitted[(int)Math.Ceiling(admitted.Count * 0.99) - 1];
        var slowest = answers.Max(a => a.Elapsed.TotalMilliseconds);
        output.WriteLine($"{answers.Count} requests in {LoadTime.TotalSeconds:F0} s: {admitted.Count} admitted (p99 {p99:F0} ms), {shed.Count} shed; slowest answer {slowest:F0} ms");
        output.WriteLine($"GC heap after a full collection: {heapBefore / 1048576.0:F1} MiB before, {heapAfter / 1048576.0:F1} MiB after");

        Assert.All(answers, a => Assert.True(a.Status is 404 or 503 or 429, $"status {a.Status}"));
        Assert.True(shed.Count >= answers.Count / 3, $"only {shed.Count} of {answers.Count} shed");
        Assert.True(admitted.Count >= 50, $"only {admitted.Count} admitted");
        Assert.All(shed, a =>
        {
            Assert.NotNull(a.RetryAfter);
            Assert.Equal("application/problem+json", a.ContentType);
        });
        // Admitted requests wait behind at most the slots and the one queued: a few reads' time. Measured
        // against one read alone on this machine now, so a busy machine does not fail it; requests left to
        // queue instead of being shed would wait seconds.
        var fast = Math.Max(200, 8 * aloneMs);
        Assert.True(p99 < fast, $"admitted p99 {p99:F0} ms, over {fast:F0} ms (8 times one read alone, {aloneMs:F0} ms, and at least 200)");
        Assert.True(slowest < 1000, $"slowest answer {slowest:F0} ms: a request waited instead of being shed");
        Assert.True(heapAfter - heapBefore < 64L * 1024 * 1024, $"GC heap grew from {heapBefore} to {heapAfter} bytes");
    }

    private static long SettledHeapBytes()
    {
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        GC.WaitForPendingFinalizers();
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        return GC.GetTotalMemory(forceFullCollection: false);
    }
}
