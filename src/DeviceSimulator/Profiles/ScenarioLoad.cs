using System.Text.Json;
using System.Text.Json.Serialization;

namespace Kobo.Sync.DeviceSimulator.Profiles;

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

    /// <summary>
    /// Live: after the last push, how long the waiting devices may take to receive what they are owed before the rest counts as missed.
    /// </summary>
    public int DrainSeconds { get; init; } = 10;

    /// <summary>Live: waiting devices that come online per second before the pushes start (all at once, they would be a herd).</summary>
    public double WaiterStartsPerSecond { get; init; } = 500;

    /// <summary>Day: the share of each kind of sync (<see cref="DayMix"/>).</summary>
    public DayMix Mix { get; init; } = new();

    [JsonIgnore]
    public string Name => $"{ToKebab(Read.ToString())}-{Transport.ToString().ToLowerInvariant()}";

    private static string ToKebab(string name) => JsonNamingPolicy.KebabCaseLower.ConvertName(name);
}
