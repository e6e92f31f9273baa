using System.Text.Json;
using System.Text.Json.Serialization;
using Kobo.Sync.DeviceSimulator.Devices;

namespace Kobo.Sync.DeviceSimulator.Profiles;

/// <summary>
/// A load shape with its SLA, as kept in <c>load/profiles/*.json</c>: which scenarios run, at what
/// arrival rates (constant steps, ramps), with how many simulated devices and which device retry
/// behaviour, and the thresholds the run must meet. Endpoints are not part of a profile: they come
/// from the command line, so the same profile runs against any cluster.
/// </summary>
public sealed record LoadProfile
{
    public required string Name { get; init; }

    public string Description { get; init; } = string.Empty;

    /// <summary>Seed of the run: arrivals, the devices drawn and their jitter follow from it.</summary>
    public int Seed { get; init; } = 1;

    /// <summary>Simulated devices; each is derived from (number, seed), none is kept in memory.</summary>
    public long Devices { get; init; } = 1_000_000;

    /// <summary>Most syncs in flight at once; arrivals beyond it wait, and their wait counts in their latency.</summary>
    public int MaxConcurrency { get; init; } = 512;

    /// <summary><c>poisson</c> (exponential gaps, like independent devices) or <c>uniform</c> (equal gaps, like wrk2).</summary>
    public ArrivalSpacing Spacing { get; init; } = ArrivalSpacing.Poisson;

    /// <summary>
    /// Syncs each scenario makes, one at a time and unmeasured, before the run: connections opened,
    /// code paths compiled, so the first measured second is not the simulator's own cold start.
    /// </summary>
    public int WarmUpSyncs { get; init; } = 5;

    /// <summary>
    /// The order user-by-id reads the users in: <c>in-order</c> (1, 2, 3, ...) or <c>shuffled</c>
    /// (every user once too, neighbours far apart, so on data larger than memory most reads miss the cache).
    /// </summary>
    public UserOrder UserOrder { get; init; } = UserOrder.InOrder;

    /// <summary>
    /// Where in its walk user-by-id starts: a run that follows another passes the reads already made, so no user is read twice.
    /// </summary>
    public long UserOffset { get; init; }

    public DeviceBehaviour Device { get; init; } = new();

    public Thresholds Thresholds { get; init; } = new();

    public required IReadOnlyList<ScenarioLoad> Scenarios { get; init; }

    private static readonly JsonSerializerOptions JsonOptions = new()
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        ReadCommentHandling = JsonCommentHandling.Skip,
        AllowTrailingCommas = true,
        UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow,
        Converters = { new JsonStringEnumConverter(JsonNamingPolicy.KebabCaseLower) },
    };

    public static LoadProfile Load(string path)
    {
        LoadProfile? profile;
        try
        {
            profile = JsonSerializer.Deserialize<LoadProfile>(File.ReadAllText(path), JsonOptions);
        }
        catch (JsonException exception)
        {
            throw new ProfileException($"{path}: {exception.Message}");
        }

        if (profile is null)
        {
            throw new ProfileException($"{path}: empty profile.");
        }

        var errors = profile.Validate().ToList();
        return errors.Count == 0 ? profile : throw new ProfileException($"{path}: {string.Join("; ", errors)}");
    }

    public IEnumerable<string> Validate()
    {
        if (Devices < 1)
        {
            yield return "devices must be at least 1";
        }

        if (UserOffset < 0)
        {
            yield return "userOffset must be at least 0";
        }

        if (WarmUpSyncs < 0)
        {
            yield return "warmUpSyncs must be at least 0";
        }

        if (MaxConcurrency < 1)
        {
            yield return "maxConcurrency must be at least 1";
        }

        if (Scenarios.Count == 0)
        {
            yield return "scenarios must list at least one scenario";
        }

        foreach (var error in Device.Validate().Concat(Thresholds.Validate()))
        {
            yield return error;
        }

        foreach (var scenario in Scenarios)
        {
            if (scenario.Steps.Count == 0)
            {
                yield return $"scenario {scenario.Name}: steps must list at least one step";
            }

            if (scenario.PageSize is < 1 or > 1_000 || scenario.PushBatch is < 0 or > 500)
            {
                yield return $"scenario {scenario.Name}: pageSize must be 1 to 1000 and pushBatch 0 to 500";
            }

            foreach (var error in scenario.Mix.Validate())
            {
                yield return $"scenario {scenario.Name}: {error}";
            }

            if (scenario.Transport == Transport.Postgres
                && scenario.Read is ReadKind.SyncSession or ReadKind.FirstSyncStorm or ReadKind.Live or ReadKind.Day)
            {
                yield return $"scenario {scenario.Name}: device sync runs over rest or grpc";
            }

            if (scenario.WaitingUsers < 1 || scenario.WaitersPerUser is < 1 or > 100
                || scenario.WaitSeconds is < 1 or > 60 || scenario.DrainSeconds is < 0 or > 600 || !(scenario.WaiterStartsPerSecond >= 1))
            {
                yield return $"scenario {scenario.Name}: waitingUsers must be at least 1, waitersPerUser 1 to 100, waitSeconds 1 to 60, " +
                    $"drainSeconds 0 to 600 and waiterStartsPerSecond at least 1";
            }

            foreach (var step in scenario.Steps)
            {
                if (step.Rate < 0 || step.RampTo < 0 || !(step.DurationSeconds > 0))
                {
                    yield return $"scenario {scenario.Name}: each step needs rate >= 0, rampTo >= 0 and durationSeconds > 0";
                }
            }
        }
    }
}
