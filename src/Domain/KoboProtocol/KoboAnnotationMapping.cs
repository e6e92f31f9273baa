using System.Text.Json;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// A Kobo annotation is a highlight (docs/kobo.md, "Annotations"): its <c>id</c> (a UUID) is the highlight's
/// key in the book the content id names; <c>highlightedText</c> its text; <c>noteText</c> its note;
/// <c>highlightColor</c> its colour (<see cref="KoboColors"/>); <c>clientLastModifiedUtc</c> the device time
/// of the edit; <c>location</c> its Kobo location, kept exactly as sent. The native range is taken from the
/// location's span: <c>start</c> is <c>span.startChar</c> and <c>length</c> is <c>endChar - startChar</c>
/// when the span starts and ends in the same element, else the text's length. These are offsets inside the
/// span's first element, not in the book: a native reader places a Kobo highlight by its location.
/// </summary>
public static class KoboAnnotationMapping
{
    public const string Highlight = "highlight";
    public const string Note = "note";

    /// <summary>
    /// The push of <paramref name="annotation"/> into <paramref name="book"/>, or null with
    /// <paramref name="withheld"/> saying why the service cannot hold it.
    /// </summary>
    public static PushedChange? ToChange(BookNo book, KoboAnnotation annotation, out string? withheld)
    {
        withheld = null;
        if (annotation.Malformed is { } member)
        {
            withheld = $"{member}: not the JSON type a Kobo annotation carries there.";
            return null;
        }

        if (!IsAnnotationId(annotation.Id))
        {
            withheld = "id: expected a UUID (36 characters, 8-4-4-4-12 hexadecimal digits).";
            return null;
        }

        var type = annotation.Type?.ToLowerInvariant();
        if (type is not (Highlight or Note))
        {
            withheld = $"type: '{Shorten(annotation.Type)}' is not an annotation this service holds (it holds highlights and notes).";
            return null;
        }

        if (string.IsNullOrWhiteSpace(annotation.HighlightedText))
        {
            withheld = "highlightedText: an annotation without highlighted text is not a highlight.";
            return null;
        }

        if (annotation.Location is not { } location || !annotation.LocationIsObject)
        {
            withheld = "location: required, a JSON object (the annotation's place in the book).";
            return null;
        }

        if (string.IsNullOrEmpty(annotation.ClientLastModifiedUtc))
        {
            withheld = "clientLastModifiedUtc: required, the device time of the edit.";
            return null;
        }

        var (start, length) = Range(location, annotation.HighlightedText);
        return new PushedChange(
            ChangeValidation.Upsert, book.ToString(), annotation.Id, null, annotation.HighlightedText, start, length,
            KoboColors.ToService(annotation.HighlightColor), annotation.NoteText,
            DeviceTime.FromText(annotation.ClientLastModifiedUtc), location);
    }

    /// <summary>
    /// The deletion of annotation <paramref name="id"/>, at the time the service received it (a device sends no time for it); null for an
    /// id that is no UUID.
    /// </summary>
    public static PushedChange? ToDeletion(BookNo book, string? id, DateTimeOffset receivedAt) =>
        IsAnnotationId(id)
            ? new PushedChange(
                ChangeValidation.Delete, book.ToString(), id, null, null, null, null, null, null, DeviceTime.FromInstant(receivedAt))
            : null;

    /// <summary>True for an annotation id in the form devices use, which is also a valid highlight key.</summary>
    public static bool IsAnnotationId(string? id) =>
        id is { Length: 36 } && Guid.TryParseExact(id, "D", out _);

    /// <summary>The annotation's type as sent to the device: a note when the highlight carries one.</summary>
    public static string TypeOf(string? note) => string.IsNullOrEmpty(note) ? Highlight : Note;

    private static (int Start, int Length) Range(string location, string text)
    {
        var fallback = Math.Max(1, text.Length);
        try
        {
            using var document = JsonDocument.Parse(location);
            if (!document.RootElement.TryGetProperty("span", out var span) || span.ValueKind != JsonValueKind.Object)
            {
                return (0, fallback);
            }

            var start = Int(span, "startChar") is >= 0 and var s ? s : 0;
            // Compared as sent: a path may hold escapes that no string can carry (half a surrogate pair).
            var samePath = span.TryGetProperty("startPath", out var a) && span.TryGetProperty("endPath", out var b)
                && a.ValueKind == JsonValueKind.String && b.ValueKind == JsonValueKind.String
                && string.Equals(a.GetRawText(), b.GetRawText(), StringComparison.Ordinal);
            return samePath && Int(span, "endChar") is { } end && end > start ? (start, end - start) : (start, fallback);
        }
        catch (JsonException)
        {
            return (0, fallback);
        }
    }

    private static int? Int(JsonElement span, string name) =>
        span.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.Number && value.TryGetInt32(out var number)
            ? number
            : null;

    private static string Shorten(string? text) =>
        text is null ? "(none)" : text.Length <= 40 ? text : string.Concat(text.AsSpan(0, 40), "...");
}
