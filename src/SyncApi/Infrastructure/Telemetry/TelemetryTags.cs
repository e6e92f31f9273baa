namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>The tag (Prometheus label) names of the <c>Kobo.Sync</c> meter.</summary>
public static class TelemetryTags
{
    public const string Endpoint = "endpoint";
    public const string Protocol = "protocol";
    public const string Outcome = "outcome";
    public const string Status = "status";
    public const string Reason = "reason";
    public const string Pipeline = "pipeline";
    public const string Event = "event";
    public const string Operation = "operation";
    public const string Node = "node";
    public const string Direction = "direction";
}

/// <summary>Values of the <c>direction</c> tag of <c>kobo.sync.buffered</c>.</summary>
public static class BufferedDirection
{
    /// <summary>Request bodies, held from their first byte until their request ends.</summary>
    public const string Request = "request";

    /// <summary>Answers produced and waiting for the device to take them.</summary>
    public const string Answer = "answer";
}

/// <summary>Values of the <c>protocol</c> tag.</summary>
public static class Protocols
{
    public const string Rest = "rest";
    public const string Grpc = "grpc";
}

/// <summary>Values of the <c>status</c> tag of <c>kobo.sync.push.changes</c>.</summary>
public static class PushChangeStatus
{
    public const string Applied = "applied";
    public const string Unchanged = "unchanged";
    public const string Conflict = "conflict";
    public const string Rejected = "rejected";
}

/// <summary>Values of the <c>reason</c> tag of <c>kobo.sync.requests.shed</c>.</summary>
public static class ShedReason
{
    /// <summary>The concurrency or rate limiter's queue was full (429 / RESOURCE_EXHAUSTED).</summary>
    public const string RateLimited = "rate_limited";

    /// <summary>The request would have waited past its deadline or the latency budget (503 / UNAVAILABLE).</summary>
    public const string Overloaded = "overloaded";

    /// <summary>The database circuit is open: answering at once beats waiting for a dead node (503 / UNAVAILABLE).</summary>
    public const string CircuitOpen = "circuit_open";
}

/// <summary>Values of the <c>reason</c> tag of <c>kobo.sync.live.refused</c>: why a wait for changes was answered at once.</summary>
public static class LiveRefusal
{
    /// <summary><c>Sync:MaxWaiters</c> devices already wait on the instance.</summary>
    public const string InstanceFull = "instance_full";

    /// <summary><c>Sync:MaxWaitersPerUser</c> devices of the user already wait on the instance.</summary>
    public const string UserFull = "user_full";

    /// <summary>The device already holds its share of its user's places (<c>Sync:MaxWaitersPerDevice</c>).</summary>
    public const string DeviceFull = "device_full";

    /// <summary>Live pull is switched off (<c>Sync:LivePull</c>).</summary>
    public const string Off = "off";

    /// <summary>The instance is shutting down.</summary>
    public const string Stopping = "stopping";
}

/// <summary>
/// Values of the <c>outcome</c> tag of <c>kobo.sync.live.signals</c>: what became of a user's change signal to the other instances.
/// </summary>
public static class LiveSignalOutcome
{
    /// <summary>Sent in a notification.</summary>
    public const string Sent = "sent";

    /// <summary>The notification failed; held to be sent again.</summary>
    public const string Failed = "failed";

    /// <summary>Too many users were held already: dropped (the waiting devices find the change at their wait's end).</summary>
    public const string Dropped = "dropped";
}

/// <summary>Values of the <c>event</c> tag of <c>kobo.sync.resilience.events</c>, one per Polly callback.</summary>
public static class ResilienceEvent
{
    public const string Retry = "retry";
    public const string CircuitOpened = "circuit_opened";
    public const string CircuitHalfOpened = "circuit_half_opened";
    public const string CircuitClosed = "circuit_closed";
    public const string Timeout = "timeout";
}
