using System.Globalization;

namespace Kobo.Sync.Domain.Text;

/// <summary>
/// Text the store can keep. PostgreSQL's text (UTF-8) refuses U+0000, and a UTF-16 surrogate without
/// its partner has no UTF-8 form at all; the driver would refuse the whole statement, and with it every
/// other change of the batch. Every other character is kept as sent.
/// </summary>
public static class StorableText
{
    /// <summary>The index of the first character the store cannot keep, or -1 when there is none.</summary>
    public static int IndexOfUnstorable(ReadOnlySpan<char> text)
    {
        for (var i = 0; i < text.Length; i++)
        {
            var c = text[i];
            if (c == '\0' || char.IsLowSurrogate(c))
            {
                return i;
            }

            if (char.IsHighSurrogate(c))
            {
                if (i + 1 == text.Length || !char.IsLowSurrogate(text[i + 1]))
                {
                    return i;
                }

                i++;
            }
        }

        return -1;
    }

    /// <summary>Why <paramref name="text"/> cannot be stored, or null when it can: "contains U+0000 (NUL) at index 3".</summary>
    public static string? Problem(ReadOnlySpan<char> text)
    {
        var index = IndexOfUnstorable(text);
        return index < 0 ? null : Describe(text[index], index);
    }

    internal static string Describe(char c, int index)
    {
        var code = ((int)c).ToString("X4", CultureInfo.InvariantCulture);
        return c == '\0'
            ? $"contains U+0000 (NUL) at index {index}"
            : $"contains an unpaired UTF-16 surrogate (U+{code}) at index {index}";
    }
}
