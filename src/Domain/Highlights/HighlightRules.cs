using System.Collections.ObjectModel;
using Kobo.Sync.Domain.Text;

namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// What a stored highlight must satisfy, whoever wrote it (a device push or the seeder). Lengths count
/// UTF-16 code units, as .NET strings do (a character outside the Basic Multilingual Plane counts two).
/// </summary>
public static class HighlightRules
{
    public const int MaxTextLength = 10_000;
    public const int MaxNoteLength = 10_000;

    /// <summary>Returns one message per broken rule, keyed by the field's name; empty when valid.</summary>
    public static IReadOnlyDictionary<string, string> Check(string? text, int start, int length, string? color, string? note)
    {
        // Most changes are valid: the dictionary is made for the first problem only.
        Dictionary<string, string>? problems = null;
        if (string.IsNullOrWhiteSpace(text))
        {
            Problems(ref problems)["text"] = "Text is required.";
        }
        else if (text.Length > MaxTextLength)
        {
            Problems(ref problems)["text"] = $"Text is longer than {MaxTextLength} characters.";
        }
        else if (StorableText.Problem(text) is { } unstorable)
        {
            Problems(ref problems)["text"] = $"Text {unstorable}, which cannot be stored.";
        }

        if (start < 0)
        {
            Problems(ref problems)["start"] = "Start must be zero or more.";
        }

        if (length < 1)
        {
            Problems(ref problems)["length"] = "Length must be at least 1.";
        }

        if (!HighlightColor.IsKnown(color))
        {
            Problems(ref problems)["color"] = $"Color must be one of: {string.Join(", ", HighlightColor.All)}.";
        }

        if (note is { Length: > MaxNoteLength })
        {
            Problems(ref problems)["note"] = $"Note is longer than {MaxNoteLength} characters.";
        }
        else if (note is not null && StorableText.Problem(note) is { } unstorable)
        {
            Problems(ref problems)["note"] = $"Note {unstorable}, which cannot be stored.";
        }

        return (IReadOnlyDictionary<string, string>?)problems ?? ReadOnlyDictionary<string, string>.Empty;
    }

    private static Dictionary<string, string> Problems(ref Dictionary<string, string>? problems) =>
        problems ??= new Dictionary<string, string>(StringComparer.Ordinal);
}
