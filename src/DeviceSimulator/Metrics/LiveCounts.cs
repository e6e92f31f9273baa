namespace Kobo.Sync.DeviceSimulator.Metrics;

/// <summary>
/// What a live pull scenario's waiting devices did between the start of the pushes and the end of the
/// drain (the window): the deliveries the pushes owed them and those they got, and the requests they made.
/// </summary>
public sealed record LiveCounts
{
    /// <summary>Devices holding a long-poll (REST) or a WatchChanges stream (gRPC).</summary>
    public long Waiters { get; init; }

    /// <summary>Acknowledged pushed changes times the waiting devices of their user: what must arrive.</summary>
    public long Expected { get; init; }

    /// <summary>Of <see cref="Expected"/>, the deliveries that arrived (each change once per device).</summary>
    public long Delivered { get; init; }

    public long Missed => Expected - Delivered;

    /// <summary>Deliveries that reached the waiting device before the pushing device had its answer (wake latency 0).</summary>
    public long BeforeAck { get; init; }

    /// <summary>A change a device had already received, received again (allowed, counted).</summary>
    public long Repeated { get; init; }

    /// <summary>A change of this run's pushes received by a device of another user: never allowed.</summary>
    public long Misdelivered { get; init; }

    /// <summary>Pushes that failed after the device's retries: their changes are owed to nobody.</summary>
    public long UnacknowledgedPushes { get; init; }

    /// <summary>REST: long-polls sent; gRPC: WatchChanges streams opened (in the window).</summary>
    public long Requests { get; init; }

    /// <summary>REST: answers with changes; gRPC: pages with changes (in the window).</summary>
    public long AnswersWithChanges { get; init; }

    /// <summary>gRPC: heartbeats received (in the window).</summary>
    public long Heartbeats { get; init; }

    /// <summary>
    /// Waits the service would not take (REST: answered at once with Retry-After; gRPC: UNAVAILABLE or RESOURCE_EXHAUSTED).
    /// </summary>
    public long Refused { get; init; }

    /// <summary>Requests or streams that failed otherwise (a status, a cut connection); the device retries after a backoff.</summary>
    public long Errors { get; init; }

    /// <summary>How long the window lasted.</summary>
    public double WindowSeconds { get; init; }

    /// <summary>Requests (<see cref="Requests"/>) per waiting device per hour, scaled from the window.</summary>
    public double RequestsPerDeviceHour => Waiters == 0 || WindowSeconds <= 0 ? 0 : Requests * 3600.0 / (Waiters * WindowSeconds);

    /// <summary>Two shards' counts together (their windows overlap: the longer one is kept).</summary>
    public LiveCounts Add(LiveCounts other) => new()
    {
        Waiters = Waiters + other.Waiters,
        Expected = Expected + other.Expected,
        Delivered = Delivered + other.Delivered,
        BeforeAck = BeforeAck + other.BeforeAck,
        Repeated = Repeated + other.Repeated,
        Misdelivered = Misdelivered + other.Misdelivered,
        UnacknowledgedPushes = UnacknowledgedPushes + other.UnacknowledgedPushes,
        Requests = Requests + other.Requests,
        AnswersWithChanges = AnswersWithChanges + other.AnswersWithChanges,
        Heartbeats = Heartbeats + other.Heartbeats,
        Refused = Refused + other.Refused,
        Errors = Errors + other.Errors,
        WindowSeconds = Math.Max(WindowSeconds, other.WindowSeconds),
    };
}
