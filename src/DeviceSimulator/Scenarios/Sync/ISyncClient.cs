using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Sync;

/// <summary>
/// A page of a pull as the device keeps it: how many changes (of them, how many highlight changes),
/// the token to send next, whether more wait.
/// </summary>
public sealed record PulledPage(int Changes, string SyncToken, bool HasMore, int Highlights = 0);

/// <summary>
/// A highlight change a device pushes with no base version: a new highlight (an upsert, with a note or
/// none), or, with <paramref name="Delete"/>, the deletion of the highlight under its key (only
/// <paramref name="BookNo"/>, <paramref name="Key"/> and <paramref name="ModifiedAt"/> are sent).
/// </summary>
public sealed record NewHighlight(
    long BookNo, string Key, string Text, int Start, int Length, string Color,
    DateTimeOffset ModifiedAt, string? Note = null, bool Delete = false)
{
    private static readonly string[] Colors = ["yellow", "pink", "blue", "green"];

    /// <summary>
    /// The <paramref name="index"/>-th new highlight of a device's batch: its place in the book and its colour drawn from the device's
    /// hash.
    /// </summary>
    public static NewHighlight Drawn(SimulatedDevice device, int index, long bookNo, string key, string text, DateTimeOffset modifiedAt) =>
        new(bookNo, key, text, device.Pick(10_000, salt: 200 + index), 1 + device.Pick(200, salt: 300 + index),
            Colors[device.Pick(Colors.Length, salt: 400 + index)], modifiedAt);
}

/// <summary>A device's device-sync calls over one transport, with the device's own token.</summary>
public interface ISyncClient
{
    Transport Transport { get; }

    ValueTask<(SyncAttempt Attempt, PulledPage? Page)> PullAsync(
        long userNo, string? since, int pageSize, SimulatedDevice device, CancellationToken cancellationToken);

    /// <summary>Pushes a batch: the ids the service gave its changes, or a failed attempt when a change was not stored.</summary>
    ValueTask<(SyncAttempt Attempt, IReadOnlyList<string>? Ids)> PushAsync(
        long userNo, IReadOnlyList<NewHighlight> batch, SimulatedDevice device, CancellationToken cancellationToken);

    /// <summary>Puts a book's reading position and status (the device's time on both groups).</summary>
    ValueTask<SyncAttempt> PutReadingStateAsync(
        long userNo, long bookNo, double percent, DateTimeOffset modifiedAt, SimulatedDevice device, CancellationToken cancellationToken);
}
