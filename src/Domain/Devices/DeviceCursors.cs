using System.Globalization;
using System.Text;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Devices;

/// <summary>Where a page of a user's device list ended: the last device's last pull (null when it never pulled) and its id.</summary>
public sealed record DevicePosition(DateTimeOffset? LastSyncAt, string DeviceId);

/// <summary>
/// Opaque, tamper-evident cursors of the device list, signed like <see cref="PageCursors"/> and
/// <see cref="ChangeFeed.SyncTokens"/> (HMAC-SHA256 over the user and the position, in a domain of their own, so
/// no other cursor or token passes for one). Format: <c>base64url("1|ticks or -|device id") "." base64url(16-byte tag)</c>.
/// </summary>
/// <param name="key">At least 32 bytes (<see cref="SignedEnvelope"/>); every instance of the service must use the same key.</param>
public sealed class DeviceCursors(byte[] key)
{
    public const string Field = "cursor";

    /// <summary>A device id is at most 128 characters, so a cursor stays well under this.</summary>
    public const int MaxCursorLength = 1_024;

    private const string FormatVersion = "1";
    private const string NeverPulled = "-";
    private readonly SignedEnvelope _envelope = new(key);

    public string Issue(UserNo user, DevicePosition position)
    {
        var at = position.LastSyncAt is { } lastSyncAt ? lastSyncAt.UtcTicks.ToString(CultureInfo.InvariantCulture) : NeverPulled;
        return _envelope.Seal(Context(user), Encoding.UTF8.GetBytes($"{FormatVersion}|{at}|{position.DeviceId}"));
    }

    /// <summary>The position the cursor names, or an <see cref="InvalidRequestException"/> for field "cursor".</summary>
    public DevicePosition Resolve(UserNo user, string cursor)
    {
        var payload = _envelope.Open(Context(user), cursor, MaxCursorLength) ?? throw Tampered();

        // Signed by this service, so well formed; checked anyway rather than trusted blindly. The id comes
        // last and may itself hold '|'.
        var parts = Encoding.UTF8.GetString(payload).Split('|', 3);
        if (parts.Length != 3 || parts[0] != FormatVersion || parts[2].Length == 0)
        {
            throw Tampered();
        }

        if (parts[1] == NeverPulled)
        {
            return new DevicePosition(null, parts[2]);
        }

        return long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var ticks)
            && ticks <= DateTimeOffset.MaxValue.UtcTicks
            ? new DevicePosition(new DateTimeOffset(ticks, TimeSpan.Zero), parts[2])
            : throw Tampered();
    }

    /// <summary>What the tag covers besides the payload: the cursor's purpose and its user.</summary>
    private static byte[] Context(UserNo user) => Encoding.UTF8.GetBytes("device-list\n" + user + "\n");

    private static InvalidRequestException Tampered() =>
        new(Field, "The cursor is not valid here: pass back, unchanged, a nextCursor this endpoint returned for the same user.");
}
