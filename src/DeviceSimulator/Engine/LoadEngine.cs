using System.Diagnostics;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Results;
using Kobo.Sync.DeviceSimulator.Scenarios;

namespace Kobo.Sync.DeviceSimulator.Engine;

/// <summary>A scenario with its arrival steps, as the engine runs it.</summary>
public sealed record ScenarioPlan(string Name, IReadScenario Scenario, IReadOnlyList<LoadStep> Steps, int Seed);

/// <summary>What the engine measured: one <see cref="ScenarioStats"/> per scenario and the generator's own load.</summary>
public sealed record EngineRun(DateTimeOffset Started, TimeSpan Duration, IReadOnlyList<ScenarioStats> Scenarios, GeneratorStats Generator);

/// <summary>
/// The open-model load engine. Each scenario's arrivals are fixed in advance (<see cref="ArrivalSchedule"/>);
/// a dispatcher per scenario starts each sync at its intended time and never waits for earlier ones,
/// except when <c>maxConcurrency</c> syncs are already in flight. Every sync's latency runs from its
/// intended start, not from when it was sent, so time spent queued behind a stalled server, in the
/// generator or at the cap is counted (no coordinated omission).
/// </summary>
public sealed class LoadEngine(IRunClock clock, DeviceRetryPipeline devices, int maxConcurrency, ArrivalSpacing spacing)
{
    public static readonly TimeSpan StartLead = TimeSpan.FromMilliseconds(100);

    private long _completed;
    private long _failed;
    private long _inFlight;

    public long Completed => Interlocked.Read(ref _completed);

    public long FailedSyncs => Interlocked.Read(ref _failed);

    public long InFlight => Interlocked.Read(ref _inFlight);

    /// <summary>
    /// Wall time each dispatch spends burning CPU before it starts its sync (zero in a real run): a
    /// generator starved on purpose, to show that its verdict says so.
    /// </summary>
    public TimeSpan DispatchBurn { get; init; }

    public async Task<EngineRun> RunAsync(IReadOnlyList<ScenarioPlan> plans, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(maxConcurrency, 1);
        // The schedule starts a moment after the dispatchers do, so setting them up is not counted as lag.
        var start = clock.Elapsed + StartLead;
        var started = DateTimeOffset.UtcNow + StartLead;
        using var cap = new SemaphoreSlim(maxConcurrency, maxConcurrency);
        using var monitor = new GeneratorMonitor();
        var stats = plans.Select(p => new ScenarioStats(p.Name)).ToList();
        var dispatchers = plans.Select((plan, i) => Task.Run(
            () => DispatchAsync(plan, stats[i], start, cap, monitor, cancellationToken), CancellationToken.None)).ToList();
        await Task.WhenAll(dispatchers);

        // Every sync holds a permit until it ends: holding them all means the last one has ended.
        for (var i = 0; i < maxConcurrency; i++)
        {
            await cap.WaitAsync(CancellationToken.None);
        }

        return new EngineRun(started, clock.Elapsed - start, stats, monitor.Stop());
    }

    private async Task DispatchAsync(
        ScenarioPlan plan, ScenarioStats stats, TimeSpan start, SemaphoreSlim cap,
        GeneratorMonitor monitor, CancellationToken cancellationToken)
    {
        // When the dispatcher was last free: after a wait at the cap, the arrivals that came due
        // meanwhile are late because of the server, not the generator, so lag counts from here.
        var free = start;
        foreach (var arrival in ArrivalSchedule.Of(plan.Steps, spacing, plan.Seed))
        {
            var intended = start + arrival.At;
            try
            {
                await clock.WaitUntilAsync(intended, cancellationToken);
                var now = clock.Elapsed;
                monitor.RecordLag(now - start, now - (intended > free ? intended : free));
                if (DispatchBurn > TimeSpan.Zero)
                {
                    await BurnAsync(DispatchBurn);
                }

                if (!cap.Wait(0, CancellationToken.None))
                {
                    await cap.WaitAsync(cancellationToken);
                    free = clock.Elapsed;
                }
            }
            catch (OperationCanceledException)
            {
                stats.RecordDropped();
                return;
            }

            _ = RunSyncAsync(plan.Scenario, arrival, intended, stats, cap, cancellationToken);
        }
    }

    /// <summary>
    /// Spins for <paramref name="wall"/>, in slices that let the thread pool's other work (the syncs, the service in a test) run between
    /// them.
    /// </summary>
    private static async Task BurnAsync(TimeSpan wall)
    {
        var until = Stopwatch.GetTimestamp() + (long)(wall.TotalSeconds * Stopwatch.Frequency);
        while (Stopwatch.GetTimestamp() < until)
        {
            var slice = Stopwatch.GetTimestamp() + (Stopwatch.Frequency / 1000);
            while (Stopwatch.GetTimestamp() < slice)
            {
                Thread.SpinWait(64);
            }

            await Task.Yield();
        }
    }

    private async Task RunSyncAsync(
        IReadScenario scenario, Arrival arrival, TimeSpan intended,
        ScenarioStats stats, SemaphoreSlim cap, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _inFlight);
        try
        {
            var device = scenario.DeviceFor(arrival.Sequence);
            var (outcome, attempts) = scenario is ISyncSessionScenario session
                ? await session.SessionAsync(device, arrival.Sequence, (int)arrival.At.TotalSeconds, devices, cancellationToken)
                : await devices.SyncAsync(
                    static (state, ct) => state.scenario.AttemptAsync(state.device, ct), (scenario, device), cancellationToken);
            var result = outcome.Ok ? SyncOutcome.Ok : SyncOutcome.Failed;
            stats.Record((int)arrival.At.TotalSeconds, clock.Elapsed - intended, result, attempts);
            Interlocked.Increment(ref _completed);
            if (result == SyncOutcome.Failed)
            {
                Interlocked.Increment(ref _failed);
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            stats.RecordDropped();
        }
        catch (Exception exception) when (exception is not OperationCanceledException)
        {
            // A scenario that throws (a bug, a bad data set) fails its sync rather than the run.
            stats.Record((int)arrival.At.TotalSeconds, clock.Elapsed - intended, SyncOutcome.Failed, 1);
            Interlocked.Increment(ref _completed);
            Interlocked.Increment(ref _failed);
        }
        finally
        {
            Interlocked.Decrement(ref _inFlight);
            cap.Release();
        }
    }
}
