using System.Globalization;
using System.Text;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// What an instance tells the others once writes committed there (PostgreSQL <c>NOTIFY</c> on
/// <see cref="Channel"/>, sent after the commits, from a connection of its own, many users in one:
/// <see cref="ChangeSignals"/>). Payload: <c>"{sender} {stampMs} {user}:{seq} {user}:{seq} ..."</c>: the
/// sending instance's id (its own listener skips what it sent: its waiters woke at the commit), the
/// sender's clock (Unix milliseconds) when the first of them committed, and for each user the highest
/// change sequence number committed. The number lets a waiting device that already has that change sleep
/// on, and the stamp measures how long the notification took to arrive. At most
/// <see cref="MaxPayloadBytes"/> (PostgreSQL refuses 8,000 bytes or more).
/// </summary>
public sealed record ChangeNotification(string Sender, DateTimeOffset StampedAt, IReadOnlyList<KeyValuePair<long, long>> Changes)
{
    /// <summary>Versioned, so that a payload of another shape comes with a channel of its own.</summary>
    public const string Channel = "kobo_sync_changes_v2";

    /// <summary>The longest payload sent: under PostgreSQL's limit, with room for one more entry's worth.</summary>
    public const int MaxPayloadBytes = 7_900;

    /// <summary>The payload, or null when it is not one this service sends (it is then ignored).</summary>
    public static ChangeNotification? Parse(string payload)
    {
        var parts = payload.Split(' ');
        if (parts.Length < 3 || parts[0].Length == 0
            || !long.TryParse(parts[1], NumberStyles.None, CultureInfo.InvariantCulture, out var stampMs)
            || stampMs > DateTimeOffset.MaxValue.ToUnixTimeMilliseconds())
        {
            return null;
        }

        var changes = new KeyValuePair<long, long>[parts.Length - 2];
        for (var i = 2; i < parts.Length; i++)
        {
            var pair = parts[i];
            var colon = pair.IndexOf(':', StringComparison.Ordinal);
            if (colon < 0
                || !long.TryParse(pair.AsSpan(0, colon), NumberStyles.None, CultureInfo.InvariantCulture, out var user)
                || !long.TryParse(pair.AsSpan(colon + 1), NumberStyles.None, CultureInfo.InvariantCulture, out var seq))
            {
                return null;
            }

            changes[i - 2] = new(user, seq);
        }

        return new ChangeNotification(parts[0], DateTimeOffset.FromUnixTimeMilliseconds(stampMs), changes);
    }

    /// <summary>
    /// The payloads that carry <paramref name="changes"/> (user, highest sequence), each at most <see cref="MaxPayloadBytes"/>.
    /// </summary>
    public static List<string> Format(string sender, DateTimeOffset stampedAt, IEnumerable<KeyValuePair<long, long>> changes)
    {
        var head = sender + " " + stampedAt.ToUnixTimeMilliseconds().ToString(CultureInfo.InvariantCulture);
        var payloads = new List<string>();
        var text = new StringBuilder(head);
        foreach (var (user, seq) in changes)
        {
            var entry = string.Create(CultureInfo.InvariantCulture, $" {user}:{seq}");
            if (text.Length + entry.Length > MaxPayloadBytes)
            {
                payloads.Add(text.ToString());
                text.Clear().Append(head);
            }

            text.Append(entry);
        }

        if (text.Length > head.Length)
        {
            payloads.Add(text.ToString());
        }

        return payloads;
    }
}
