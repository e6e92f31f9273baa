using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// A database that answers, but slower than the request budget (an overloaded node, a saturated
/// link): devices calling at a steady rate get 503 with Retry-After when their budget runs out, not
/// a timeout after seconds, and the calls do not pile up on the database as ever more open
/// connections. When the database is fast again, the service serves again by itself.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class SlowDatabaseTests(ServiceBehindFaultProxy service, ITestOutputHelper output) : IClassFixture<ServiceBehindFaultProxy>
{
    private const long User = ServiceBehindFaultProxy.UnknownUser;

    /// <summary>Added to every packet each way: a round trip takes 800 ms against the fixture's 200 ms budget.</summary>
    private static readonly TimeSpan DatabaseLatency = TimeSpan.FromMilliseconds(400);

    private static readonly TimeSpan AnswerWithin = TimeSpan.FromMilliseconds(300);
    private static readonly TimeSpan Arrival = TimeSpan.FromMilliseconds(25);
    private const int Calls = 120;

    [Fact]
    public async Task ADatabaseSlowerThanTheBudgetGets503WithRetryAfterAtTheBudgetAndCallsDoNotPileUp()
    {
        await service.HealAsync(); // warm: connections open, code paths compiled
        var idleConnections = service.Proxy.OpenConnections;
        service.Proxy.Latency = DatabaseLatency;
        var peakConnections = 0;
        Answer[] answers;
        try
        {
            using var sampling = new CancellationTokenSource();
            var sampler = Task.Run(async () =>
            {
                while (!sampling.IsCancellationRequested)
                {
                    peakConnections = Math.Max(peakConnections, service.Proxy.OpenConnections);
                    await Task.Delay(20, CancellationToken.None);
                }
            });
            answers = await SteadyArrivals.SendAsync(
                Arrival, (i, _) => i < Calls, (i, _) => RestGetUserAsync(service.Rest, User, $"slow-device-{i % 40}"));
            await sampling.CancelAsync();
            await sampler;
        }
        finally
        {
            await service.HealAsync();
        }

        var slowest = answers.Max(a => a.Elapsed.TotalMilliseconds);
        foreach (var (a, i) in answers.Select((a, i) => (a, i)).Where(x => x.a.Elapsed >= AnswerWithin))
        {
            output.WriteLine($"call {i} (sent at {(Arrival * i).TotalMilliseconds:F0} ms): {a.Status} after {a.Elapsed.TotalMilliseconds:F0} ms: {a.Body}");
        }

        output.WriteLine($"{answers.Length} calls over {Calls * Arrival.TotalSeconds:F0} s; slowest {slowest:F0} ms; statuses {string.Join(",", answers.Select(a => a.Status).Distinct())}; database connections {idleConnections} idle, {peakConnections} at the peak");

        Assert.All(answers, a =>
        {
            Assert.Equal(503, a.Status);
            Assert.NotNull(a.RetryAfter);
            Assert.Equal("application/problem+json", a.ContentType);
            Assert.True(a.Elapsed < AnswerWithin, $"answered after {a.Elapsed.TotalMilliseconds:F0} ms");
        });
        // One connection per call would be over a hundred: the budget and the circuit keep it to a few.
        Assert.True(peakConnections <= idleConnections + 10, $"{peakConnections} database connections at the peak ({idleConnections} before)");
    }
}
