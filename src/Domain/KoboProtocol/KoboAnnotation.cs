namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// One annotation of a Kobo device's <c>PATCH api/v3/content/{contentId}/annotations</c>, field for field
/// as sent (nothing trusted yet). <see cref="Location"/> is the raw JSON text of the <c>location</c>
/// member, exactly as it was in the request, or null when absent; <see cref="LocationIsObject"/> says
/// whether that member was a JSON object. <see cref="Malformed"/> names a member the device sent with the
/// wrong JSON type (the annotation is then withheld, not guessed at).
/// </summary>
public sealed record KoboAnnotation(
    string? Id,
    string? Type,
    string? HighlightedText,
    string? NoteText,
    string? HighlightColor,
    string? ClientLastModifiedUtc,
    string? Location,
    bool LocationIsObject,
    string? Malformed = null);

/// <summary>What became of one annotation of a PATCH; <see cref="Reason"/> for conflicts and withheld ones.</summary>
public sealed record KoboAnnotationResult(string? Id, string Status, string? Reason = null);

/// <summary>The values of <see cref="KoboAnnotationResult.Status"/>.</summary>
public static class KoboAnnotationStatus
{
    /// <summary>Stored as a highlight (or already stored: a replay), or, for a deleted id, a tombstone.</summary>
    public const string Stored = "stored";

    /// <summary>A newer edit is stored and wins; the device gets it with its next download of the book.</summary>
    public const string Conflict = "conflict";

    /// <summary>
    /// Not something the service can hold (no text, another type, a malformed field): nothing stored, and
    /// the book is never again offered to this device for download, so the device keeps it.
    /// </summary>
    public const string Withheld = "withheld";
}
