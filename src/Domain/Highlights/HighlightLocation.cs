using System.Text.Json;
using Kobo.Sync.Domain.Text;

namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// A highlight's optional Kobo location: where the passage sits in the device's rendering of the book
/// (its <c>span</c> with chapter file, progress, start and end paths and characters). The service keeps it
/// as text, exactly as sent, and returns it byte for byte; it never reads inside it, except that the Kobo
/// front accepts only a JSON object there (a device sends nothing else).
/// </summary>
public static class HighlightLocation
{
    public const int MaxLength = 4_096;

    /// <summary>Why <paramref name="location"/> cannot be stored, or null when it can (null itself can: no location).</summary>
    public static string? Problem(string? location)
    {
        if (location is null)
        {
            return null;
        }

        if (location.Length == 0)
        {
            return "Location is empty; leave it out when the highlight has none.";
        }

        if (location.Length > MaxLength)
        {
            return $"Location is longer than {MaxLength} characters.";
        }

        return StorableText.Problem(location) is { } unstorable ? $"Location {unstorable}, which cannot be stored." : null;
    }

    /// <summary>True when <paramref name="location"/> is a single JSON object (what a Kobo device sends).</summary>
    public static bool IsJsonObject(string location)
    {
        try
        {
            using var document = JsonDocument.Parse(location, new JsonDocumentOptions { MaxDepth = 16 });
            return document.RootElement.ValueKind == JsonValueKind.Object;
        }
        catch (JsonException)
        {
            return false;
        }
    }
}
