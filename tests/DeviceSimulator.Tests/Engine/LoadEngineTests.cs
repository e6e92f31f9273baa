using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Engine;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Scenarios;
using Kobo.Sync.DeviceSimulator.Tests.EndToEnd;
using Kobo.Sync.DeviceSimulator.Tests.Support;

namespace Kobo.Sync.DeviceSimulator.Tests.Engine;

/// <summary>The engine on a manual clock: time moves only when the test says, so latencies are exact.</summary>
[Collection(EndToEndCollection.Name)]
public sealed class LoadEngineTests
{
    [Fact]
    public async Task SyncsHeldBackByTheConcurrencyCapCountTheirWaitFromTheIntendedStart()
    {
        var clock = new ManualRunClock();
        var scenario = new TimedScenario(clock, TimeSpan.FromMilliseconds(500));
        var engine = new LoadEngine(clock, new DeviceRetryPipeline(new DeviceBehaviour { TimeoutMs = 60_000, MaxRetries = 0 }), maxConcurrency: 1, ArrivalSpacing.Uniform);

        // 10 syncs at 0.0, 0.1 ... 0.9 s; each takes 0.5 s and only one runs at a time, so sync k
        // ends at 0.5 (k + 1) s and waited 0.5 + 0.4 k s since its intended start.
        var run = engine.RunAsync([new ScenarioPlan("timed", scenario, [new LoadStep { Rate = 10, DurationSeconds = 1 }], Seed: 1)], CancellationToken.None);
        await clock.AdvanceAsync(TimeSpan.FromSeconds(6), TimeSpan.FromMilliseconds(10));
        var result = await run.WaitAsync(TimeSpan.FromSeconds(30));

        var stats = Assert.Single(result.Scenarios);
        Assert.Equal(10, stats.Syncs);
        Assert.Equal(0, stats.Failed);
        Assert.InRange(stats.Latency.Max / 1000.0, 4_090, 4_400);
        Assert.InRange(stats.Latency.Min / 1000.0, 490, 600);
        Assert.InRange(stats.Latency.ValueAtPercentile(50) / 1000.0, 2_090, 2_300); // k = 4: 0.5 + 1.6 s
        Assert.Equal(1, scenario.MostInFlight);
    }

    [Fact]
    public async Task WithoutACapArrivalsDoNotWaitForEarlierSyncs()
    {
        var clock = new ManualRunClock();
        var scenario = new TimedScenario(clock, TimeSpan.FromMilliseconds(500));
        var engine = new LoadEngine(clock, new DeviceRetryPipeline(new DeviceBehaviour { TimeoutMs = 60_000, MaxRetries = 0 }), maxConcurrency: 100, ArrivalSpacing.Uniform);

        var run = engine.RunAsync([new ScenarioPlan("timed", scenario, [new LoadStep { Rate = 10, DurationSeconds = 1 }], Seed: 1)], CancellationToken.None);
        await clock.AdvanceAsync(TimeSpan.FromSeconds(2), TimeSpan.FromMilliseconds(10));
        var result = await run.WaitAsync(TimeSpan.FromSeconds(30));

        var stats = Assert.Single(result.Scenarios);
        Assert.Equal(10, stats.Syncs);
        Assert.InRange(stats.Latency.Max / 1000.0, 490, 600);
        Assert.True(scenario.MostInFlight >= 5, $"open model: about five syncs overlap, saw {scenario.MostInFlight}");
    }

    // The bounds allow for the test host's thread pool running a woken sync a few clock steps late
    // on a busy machine; without the intended-start rule the first test's maximum would be 0.5 s.

    /// <summary>A read that takes a fixed time on the manual clock.</summary>
    private sealed class TimedScenario(ManualRunClock clock, TimeSpan duration) : IReadScenario
    {
        private int _inFlight;

        public int MostInFlight { get; private set; }

        public ReadKind Read => ReadKind.UserById;

        public Transport Transport => Transport.Rest;

        public SimulatedDevice DeviceFor(long sequence) => SimulatedDevice.Of(sequence, 1);

        public async ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
        {
            var now = Interlocked.Increment(ref _inFlight);
            lock (this)
            {
                MostInFlight = Math.Max(MostInFlight, now);
            }

            await clock.WaitUntilAsync(clock.Elapsed + duration, cancellationToken);
            Interlocked.Decrement(ref _inFlight);
            return SyncAttempt.Success();
        }
    }
}
