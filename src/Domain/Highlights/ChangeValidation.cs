using System.Globalization;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Highlights;

/// <summary>Checks one pushed change; a broken change is rejected alone, the rest of the batch still applies.</summary>
public static class ChangeValidation
{
    public const string Upsert = "upsert";
    public const string Delete = "delete";

    /// <summary>
    /// The valid change, or null with <paramref name="reason"/> set. <paramref name="id"/> is the
    /// highlight id whenever book and key are valid, so even a rejection names what it concerns.
    /// </summary>
    public static ValidChange? Check(
        UserNo user, PushedChange change, DateTimeOffset now, TimeSpan maxClockSkew, out string? id, out string? reason)
    {
        id = null;
        reason = null;
        if (!BookNo.TryParse(change.BookNo, out var book))
        {
            reason = "bookNo: expected a whole number from 1 to 18 digits, without a sign or leading zero.";
            return null;
        }

        if (!HighlightKey.TryParse(change.Key, out var key))
        {
            reason = $"key: expected 1 to {HighlightKey.MaxLength} characters of A-Z, a-z, 0-9, '_' or '-'.";
            return null;
        }

        var highlightId = new HighlightId(user, book, key);
        id = highlightId.ToString();
        var isDelete = change.Op == Delete;
        if (!isDelete && change.Op != Upsert)
        {
            reason = $"op: expected '{Upsert}' or '{Delete}'.";
            return null;
        }

        if (change.ModifiedAt is not { } sentAt)
        {
            reason = "modifiedAt: required, the device time of the edit (ISO 8601 with an offset).";
            return null;
        }

        if (!sentAt.TryResolve(out var modifiedAt, out reason))
        {
            return null;
        }

        long? baseVersion = null;
        if (!string.IsNullOrEmpty(change.BaseVersion))
        {
            if (!Versions.TryParse(change.BaseVersion, out var parsed))
            {
                reason = "baseVersion: not a version this service issued; send back a version unchanged, or none.";
                return null;
            }

            baseVersion = parsed;
        }

        if (!isDelete)
        {
            var problems = HighlightRules.Check(change.Text, change.Start ?? -1, change.Length ?? 0, change.Color, change.Note);
            if (problems.Count > 0)
            {
                reason = string.Join(" ", problems.Select(p => $"{p.Key}: {p.Value}"));
                return null;
            }

            if (HighlightLocation.Problem(change.Location) is { } locationProblem)
            {
                reason = $"location: {locationProblem}";
                return null;
            }
        }

        // A device clock running ahead must not win every future conflict: clamp it to server time.
        var at = modifiedAt > now + maxClockSkew ? DeviceTime.ToMicroseconds(now) : modifiedAt;
        return isDelete
            ? new ValidChange(highlightId, true, baseVersion, null, null, null, null, null, at)
            : new ValidChange(
                highlightId, false, baseVersion, change.Text, change.Start, change.Length, change.Color, change.Note, at, change.Location);
    }
}

/// <summary>Server versions as devices see them: opaque strings (a decimal counter per highlight today).</summary>
public static class Versions
{
    public static string Format(long version) => version.ToString(CultureInfo.InvariantCulture);

    public static bool TryParse(string text, out long version) =>
        long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out version) && version > 0;
}
