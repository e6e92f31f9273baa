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
        var problems = new Dictionary<string, string>(StringComparer.Ordinal);
        if (string.IsNullOrWhiteSpace(text))
        {
            problems["text"] = "Text is required.";
        }
        else if (text.Length > MaxTextLength)
        {
            problems["text"] = $"Text is longer than {MaxTextLength} characters.";
        }
        else if (StorableText.Problem(text) is { } unstorable)
        {
            problems["text"] = $"Text {unstorable}, which cannot be stored.";
        }

        if (start < 0)
        {
            problems["start"] = "Start must be zero or more.";
        }

        if (length < 1)
        {
            problems["length"] = "Length must be at least 1.";
        }

        if (!HighlightColor.IsKnown(color))
        {
            problems["color"] = $"Color must be one of: {string.Join(", ", HighlightColor.All)}.";
        }

        if (note is { Length: > MaxNoteLength })
        {
            problems["note"] = $"Note is longer than {MaxNoteLength} characters.";
        }
        else if (note is not null && StorableText.Problem(note) is { } unstorable)
        {
            problems["note"] = $"Note {unstorable}, which cannot be stored.";
        }

        return problems;
    }
}
