using System.Diagnostics;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// Why a waiter woke: a notification received at <see cref="ReceivedAt"/> (a <see cref="Stopwatch"/>
/// timestamp) and stamped by the database at <see cref="StampedAt"/> (null when a re-check after a
/// listener reconnect woke it), the service stopping, or a device of the user revoked
/// (<see cref="Recheck"/>: no change, but the waiter should check that its token still holds).
/// </summary>
public readonly record struct WakeSignal(long ReceivedAt, DateTimeOffset? StampedAt, bool Stopping = false, bool Recheck = false)
{
    public static WakeSignal Now(DateTimeOffset? stampedAt = null) => new(Stopwatch.GetTimestamp(), stampedAt);
}
