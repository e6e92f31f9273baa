using System.Globalization;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// What a commit tells the listening instances (PostgreSQL <c>NOTIFY</c> on <see cref="Channel"/>):
/// the user whose changes committed, the highest change sequence number the transaction wrote, and the
/// database's clock (Unix milliseconds) when the push sent it, just before its commit. Payload:
/// <c>"{user} {seq} {stampMs}"</c>, about 30 bytes. The number lets a waiting device that already has
/// that change sleep on, and the stamp measures how long the notification took to arrive.
/// </summary>
public readonly record struct ChangeNotification(long User, long Seq, DateTimeOffset StampedAt)
{
    /// <summary>Versioned, so that a payload of another shape can come with a channel of its own.</summary>
    public const string Channel = "kobo_sync_changes_v1";

    /// <summary>The payload, or null when it is not one this service sends (it is then ignored).</summary>
    public static ChangeNotification? Parse(string payload)
    {
        var parts = payload.Split(' ');
        return parts.Length == 3
            && long.TryParse(parts[0], NumberStyles.None, CultureInfo.InvariantCulture, out var user)
            && long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var seq)
            && long.TryParse(parts[2], NumberStyles.None, CultureInfo.InvariantCulture, out var stampMs)
            && stampMs <= DateTimeOffset.MaxValue.ToUnixTimeMilliseconds()
                ? new ChangeNotification(user, seq, DateTimeOffset.FromUnixTimeMilliseconds(stampMs))
                : null;
    }
}
