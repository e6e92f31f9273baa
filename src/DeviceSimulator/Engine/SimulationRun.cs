using Kobo.Sync.Contracts.Tokens;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Results;
using Kobo.Sync.DeviceSimulator.Scenarios;
using Kobo.Sync.DeviceSimulator.Scenarios.Day;
using Kobo.Sync.DeviceSimulator.Seeding;

namespace Kobo.Sync.DeviceSimulator.Engine;

/// <summary>Everything a run needs besides its profile.</summary>
public sealed record RunSettings
{
    public required Endpoints Endpoints { get; init; }

    public required DeviceTokenSigner Tokens { get; init; }

    public IReadOnlyList<HeavyUser> HeaviestUsers { get; init; } = [];

    /// <summary>Users in the data set (user-by-id walks them all).</summary>
    public long Users { get; init; } = 1;

    public Shard Shard { get; init; } = Shard.Whole;

    /// <summary>The service's <c>Paging:CursorKey</c>: a day's devices hold sync tokens signed with it.</summary>
    public string? CursorKey { get; init; }

    /// <summary>Where a day's ledger of acknowledged pushes and pulls goes (none when null).</summary>
    public string? LedgerFolder { get; init; }

    /// <summary>
    /// CPU burnt in each dispatch (<see cref="LoadEngine.DispatchBurn"/>): zero, except to starve the generator on purpose.
    /// </summary>
    public TimeSpan DispatchBurn { get; init; }
}

/// <summary>A run from profile to result: builds the fleet and scenarios, runs the engine, builds the result (gate included).</summary>
public static class SimulationRun
{
    public static async Task<RunResult> ExecuteAsync(
        LoadProfile profile, RunSettings settings, Action<LoadEngine>? started, CancellationToken cancellationToken)
    {
        var fleet = new DeviceFleet(profile.Devices, profile.Seed, settings.Shard);
        var sampling = new ReadSampling(fleet, settings.HeaviestUsers, settings.Users, profile.UserOrder, profile.UserOffset);
        var tokens = new DeviceTokens(settings.Tokens, TimeSpan.FromMinutes(profile.Device.TokenLifetimeMinutes));
        using var day = DayRun.Open(profile, settings.CursorKey, settings.Shard, settings.LedgerFolder);
        await using var catalog = new ScenarioCatalog(
            sampling, tokens, settings.Endpoints, profile.MaxConcurrency, profile.Device, profile.Seed, day);

        var plans = Plans(profile, settings, catalog);

        // Live pull's waiting devices wait through the warm-up and the whole run, and drain after it.
        var waiting = plans.Select(p => p.Scenario).OfType<IWaitingScenario>().ToList();
        var stopped = false;
        EngineRun run;
        try
        {
            foreach (var scenario in waiting)
            {
                await scenario.StartWaitersAsync(cancellationToken);
            }

            foreach (var plan in plans)
            {
                for (var i = 0; i < profile.WarmUpSyncs; i++)
                {
                    await WarmUpAsync(plan.Scenario, i, cancellationToken);
                }
            }

            var engine = new LoadEngine(
                new SystemRunClock(), new DeviceRetryPipeline(profile.Device), profile.MaxConcurrency, profile.Spacing)
            {
                DispatchBurn = settings.DispatchBurn,
            };
            started?.Invoke(engine);
            waiting.ForEach(w => w.OpenWindow());
            run = await engine.RunAsync(plans, cancellationToken);
            foreach (var scenario in waiting)
            {
                await scenario.StopWaitersAsync(drain: true, cancellationToken);
            }

            stopped = true;
        }
        finally
        {
            if (!stopped)
            {
                foreach (var scenario in waiting)
                {
                    await scenario.StopWaitersAsync(drain: false, CancellationToken.None);
                }
            }
        }

        day?.Close(plans.Select(p => p.Scenario).OfType<DeviceDayScenario>());

        // A sync session's steps are reported (and gated) beside it, as scenarios of their own.
        var measured = profile.Scenarios.Zip(run.Scenarios).ToList();
        measured.AddRange(profile.Scenarios.Zip(plans)
            .SelectMany(p => p.Second.Scenario is ISyncSessionScenario session ? session.StepStats.Select(s => (p.First, s)) : []));
        return ResultBuilder.Build(profile, [settings.Shard.ToString()], run.Started, run.Duration, measured, run.Generator);
    }

    /// <summary>
    /// Makes known to the service the devices of this shard's day scenarios that synced before the run
    /// (<see cref="DayRun.RegisterDevicesAsync"/>), every sync the run will make (and the warm-up's);
    /// run before the shards start, so no shard's load meets another's registration. The devices made known.
    /// </summary>
    public static async Task<long> RegisterDevicesAsync(
        LoadProfile profile, RunSettings settings, string database, CancellationToken cancellationToken)
    {
        var fleet = new DeviceFleet(profile.Devices, profile.Seed, settings.Shard);
        var sampling = new ReadSampling(fleet, settings.HeaviestUsers, settings.Users, profile.UserOrder, profile.UserOffset);
        var tokens = new DeviceTokens(settings.Tokens, TimeSpan.FromMinutes(profile.Device.TokenLifetimeMinutes));
        using var day = DayRun.Open(profile, settings.CursorKey, settings.Shard, ledgerFolder: null);
        await using var catalog = new ScenarioCatalog(
            sampling, tokens, settings.Endpoints, profile.MaxConcurrency, profile.Device, profile.Seed, day);
        long known = 0;
        foreach (var plan in Plans(profile, settings, catalog).Where(p => p.Scenario is DeviceDayScenario))
        {
            var syncs = Math.Max(profile.WarmUpSyncs, ArrivalSchedule.Of(plan.Steps, profile.Spacing, plan.Seed).LongCount());
            known += await DayRun.RegisterDevicesAsync(database, (DeviceDayScenario)plan.Scenario, syncs, cancellationToken);
        }

        return known;
    }

    /// <summary>A shard sends its share of each rate, so n shards together send the profile's rate.</summary>
    private static List<ScenarioPlan> Plans(LoadProfile profile, RunSettings settings, ScenarioCatalog catalog) =>
        profile.Scenarios.Select((load, i) => new ScenarioPlan(
            load.Name,
            catalog.Create(load),
            load.Steps.Select(s => s with { Rate = s.Rate / settings.Shard.Count, RampTo = s.RampTo / settings.Shard.Count }).ToList(),
            Seed: unchecked((profile.Seed * 31) + (i * 7919) + (settings.Shard.Index * 104_729)))).ToList();

    /// <summary>
    /// One unjudged warm-up sync. As in the judged run, a sync that throws (its target slow on a busy
    /// machine, a raw read over its storage budget) fails that sync, never the run.
    /// </summary>
    private static async Task WarmUpAsync(IReadScenario scenario, long sequence, CancellationToken cancellationToken)
    {
        try
        {
            await scenario.AttemptAsync(scenario.DeviceFor(sequence), cancellationToken);
        }
        catch (Exception exception) when (exception is not OperationCanceledException || !cancellationToken.IsCancellationRequested)
        {
            // Unjudged: the warm-up only fills what fills once (connections, caches, compiled code).
        }
    }
}
