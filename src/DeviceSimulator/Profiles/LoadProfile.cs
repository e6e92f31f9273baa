using System.Text.Json;
using System.Text.Json.Serialization;
using Kobo.Sync.DeviceSimulator.Scenarios;

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

    /// <summary>Where in its walk user-by-id starts: a run that follows another passes the reads already made, so no user is read twice.</summary>
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

            if (scenario.Transport == Transport.Postgres && scenario.Read is ReadKind.SyncSession or ReadKind.FirstSyncStorm or ReadKind.Live)
            {
                yield return $"scenario {scenario.Name}: device sync runs over rest or grpc";
            }

            if (scenario.WaitingUsers < 1 || scenario.WaitersPerUser is < 1 or > 100
                || scenario.WaitSeconds is < 1 or > 60 || scenario.DrainSeconds is < 0 or > 600 || !(scenario.WaiterStartsPerSecond >= 1))
            {
                yield return $"scenario {scenario.Name}: waitingUsers must be at least 1, waitersPerUser 1 to 100, waitSeconds 1 to 60, drainSeconds 0 to 600 and waiterStartsPerSecond at least 1";
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

public enum ArrivalSpacing
{
    Poisson,
    Uniform,
}

/// <summary>What a scenario's devices do: one of the three hot device reads, or a device sync (push and pull).</summary>
public enum ReadKind
{
    /// <summary>First page of a user's highlights across all books, from the heaviest users.</summary>
    HighlightsByUser,

    /// <summary>First page of a user's highlights in one book, from the heaviest users.</summary>
    HighlightsByBook,

    /// <summary>One user by id, every user once.</summary>
    UserById,

    /// <summary>A device sync session: pull every page since the device's token, push a small batch of new highlights, pull again.</summary>
    SyncSession,

    /// <summary>A new device's first sync: every page of its user's changes, until <c>hasMore</c> is false.</summary>
    FirstSyncStorm,

    /// <summary>
    /// Live pull: devices wait for changes (REST long-poll, gRPC WatchChanges) while another device of
    /// the same user pushes; each sync is a push, and each delivery's wake latency is measured.
    /// </summary>
    Live,
}

/// <summary>How a read reaches the data: the service over REST or gRPC, or PostgreSQL directly (the baseline).</summary>
public enum Transport
{
    Rest,
    Grpc,
    Postgres,
}

/// <summary>One scenario of a profile: a read, a transport and its arrival steps.</summary>
public sealed record ScenarioLoad
{
    public required ReadKind Read { get; init; }

    public required Transport Transport { get; init; }

    public required IReadOnlyList<LoadStep> Steps { get; init; }

    /// <summary>Device sync: the <c>pageSize</c> of each pull (1 to 1,000).</summary>
    public int PageSize { get; init; } = 100;

    /// <summary>Device sync session: new highlights pushed in each session (0 to 500); live: in each push.</summary>
    public int PushBatch { get; init; } = 3;

    /// <summary>Live: users whose devices wait for changes; each push goes to one of them, drawn at random.</summary>
    public int WaitingUsers { get; init; } = 100;

    /// <summary>Live: devices of each of those users that wait (a further device of the user pushes).</summary>
    public int WaitersPerUser { get; init; } = 2;

    /// <summary>Live over REST: the <c>wait</c> of each long-poll, in seconds (1 to 60).</summary>
    public int WaitSeconds { get; init; } = 30;

    /// <summary>Live: after the last push, how long the waiting devices may take to receive what they are owed before the rest counts as missed.</summary>
    public int DrainSeconds { get; init; } = 10;

    /// <summary>Live: waiting devices that come online per second before the pushes start (all at once, they would be a herd).</summary>
    public double WaiterStartsPerSecond { get; init; } = 500;

    [JsonIgnore]
    public string Name => $"{ToKebab(Read.ToString())}-{Transport.ToString().ToLowerInvariant()}";

    private static string ToKebab(string name) => JsonNamingPolicy.KebabCaseLower.ConvertName(name);
}

/// <summary>
/// A stretch of the run: <see cref="Rate"/> syncs per second for <see cref="DurationSeconds"/>, or a
/// linear ramp from <see cref="Rate"/> to <see cref="RampTo"/> when that is set.
/// </summary>
public sealed record LoadStep
{
    public double Rate { get; init; }

    public double? RampTo { get; init; }

    public double DurationSeconds { get; init; }
}

/// <summary>A device's patience, as a real e-reader's: a timeout per attempt, backoff with jitter, a bounded number of retries.</summary>
public sealed record DeviceBehaviour
{
    public int TimeoutMs { get; init; } = 5_000;

    public int MaxRetries { get; init; } = 3;

    public int BaseDelayMs { get; init; } = 500;

    public int MaxDelayMs { get; init; } = 30_000;

    /// <summary>Lifetime of the device tokens the simulator mints.</summary>
    public int TokenLifetimeMinutes { get; init; } = 60;

    /// <summary>
    /// A device's own pace within a sync session: at most <see cref="Burst"/> requests at once, then
    /// <see cref="RequestsPerSecond"/>. Below the service's per-device limit (20, then 10/s), so a
    /// long first sync is not refused with 429.
    /// </summary>
    public int RequestsPerSecond { get; init; } = 9;

    public int Burst { get; init; } = 18;

    internal IEnumerable<string> Validate()
    {
        if (TimeoutMs < 1 || MaxRetries < 0 || BaseDelayMs < 0 || MaxDelayMs < BaseDelayMs || TokenLifetimeMinutes < 1 || RequestsPerSecond < 1 || Burst < 1)
        {
            yield return "device needs timeoutMs >= 1, maxRetries >= 0, 0 <= baseDelayMs <= maxDelayMs, tokenLifetimeMinutes >= 1, requestsPerSecond >= 1, burst >= 1";
        }
    }
}

/// <summary>
/// The SLA of a run: every service scenario's p99 under <see cref="P99Ms"/>, failed syncs under
/// <see cref="FailedSyncPercent"/>; live pull's wake latency p99 at most <see cref="WakeP99Ms"/>.
/// </summary>
public sealed record Thresholds
{
    public double P99Ms { get; init; } = 200;

    public double FailedSyncPercent { get; init; } = 0.1;

    /// <summary>Live pull: p99 of the time from a push's acknowledgement to a waiting device of its user holding the change.</summary>
    public double WakeP99Ms { get; init; } = 100;

    internal IEnumerable<string> Validate()
    {
        if (!(P99Ms > 0) || FailedSyncPercent < 0 || !(WakeP99Ms > 0))
        {
            yield return "thresholds need p99Ms > 0, failedSyncPercent >= 0 and wakeP99Ms > 0";
        }
    }
}

public sealed class ProfileException(string message) : Exception(message);
