using BenchmarkDotNet.Attributes;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Engine;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Scenarios;

namespace Kobo.Sync.DeviceSimulator.Benchmarks;

/// <summary>
/// What the simulator itself spends per sync, with a read that costs nothing: the whole engine path
/// (schedule, dispatch, device, Polly retry pipeline with its timeout, statistics) and its parts.
/// The engine's share of a real run's latency is at most this.
/// </summary>
[MemoryDiagnoser]
public class EngineOverheadBenchmarks
{
    private const int SyncsPerRun = 20_000;

    private readonly LatencyHistogram _histogram = new();
    private readonly ScenarioStats _stats = new("bench");
    private readonly DeviceRetryPipeline _pipeline = new(new DeviceBehaviour { TimeoutMs = 5_000, MaxRetries = 3 });
    private readonly DeviceFleet _fleet = new(10_000_000, 1, Shard.Whole);
    private readonly FreeRead _read = new();
    private long _sequence;

    /// <summary>The engine end to end: 20,000 syncs scheduled as fast as they can go, each through the retry pipeline.</summary>
    [Benchmark(OperationsPerInvoke = SyncsPerRun)]
    public async Task<long> EngineSync()
    {
        var engine = new LoadEngine(new ImmediateClock(), _pipeline, maxConcurrency: 1_024, ArrivalSpacing.Poisson);
        var run = await engine.RunAsync(
            [new ScenarioPlan("free", _read, [new LoadStep { Rate = SyncsPerRun, DurationSeconds = 1 }], Seed: 1)], CancellationToken.None);
        return run.Scenarios[0].Syncs;
    }

    [Benchmark]
    public void HistogramRecord() => _histogram.Record(12_345 + (_sequence++ & 1023));

    [Benchmark]
    public void StatsRecord() => _stats.Record(0, TimeSpan.FromMilliseconds(12), SyncOutcome.Ok, 1);

    [Benchmark]
    public long DeviceForSync() => _fleet.ForSync(_sequence++, 11).Number;

    [Benchmark]
    public async ValueTask<int> RetryPipelineSuccess()
    {
        var (_, attempts) = await _pipeline.SyncAsync(static (read, ct) => read.AttemptAsync(default, ct), _read, CancellationToken.None);
        return attempts;
    }

    /// <summary>A clock whose every instant has already come: the engine never sleeps.</summary>
    private sealed class ImmediateClock : IRunClock
    {
        private readonly System.Diagnostics.Stopwatch _stopwatch = System.Diagnostics.Stopwatch.StartNew();

        public TimeSpan Elapsed => _stopwatch.Elapsed + TimeSpan.FromHours(1);

        public ValueTask WaitUntilAsync(TimeSpan at, CancellationToken cancellationToken) => ValueTask.CompletedTask;
    }

    private sealed class FreeRead : IReadScenario
    {
        public ReadKind Read => ReadKind.UserById;

        public Transport Transport => Transport.Rest;

        public SimulatedDevice DeviceFor(long sequence) => SimulatedDevice.Of(sequence, 1);

        public ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken) =>
            ValueTask.FromResult(SyncAttempt.Success());
    }
}
