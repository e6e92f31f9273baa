using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Sync;

/// <summary>A page of a pull as the device keeps it: how many changes, the token to send next, whether more wait.</summary>
public sealed record PulledPage(int Changes, string SyncToken, bool HasMore);

/// <summary>A new highlight a device pushes (an upsert with no base version).</summary>
public sealed record NewHighlight(long BookNo, string Key, string Text, int Start, int Length, string Color, DateTimeOffset ModifiedAt);

/// <summary>A device's device-sync calls over one transport, with the device's own token.</summary>
public interface ISyncClient
{
    Transport Transport { get; }

    ValueTask<(SyncAttempt Attempt, PulledPage? Page)> PullAsync(
        long userNo, string? since, int pageSize, SimulatedDevice device, CancellationToken cancellationToken);

    /// <summary>Pushes a batch: the ids the service gave its changes, or a failed attempt when a change was not stored.</summary>
    ValueTask<(SyncAttempt Attempt, IReadOnlyList<string>? Ids)> PushAsync(
        long userNo, IReadOnlyList<NewHighlight> batch, SimulatedDevice device, CancellationToken cancellationToken);
}
