using System.Globalization;

namespace Kobo.Sync.Domain.Ids;

/// <summary>
/// Parsing rules shared by the numeric entity numbers that appear in URLs and document ids.
/// A number is 1 to 18 ASCII digits, no sign, no leading zero, greater than zero, so that
/// every number has exactly one spelling and two different numbers never share an id.
/// </summary>
internal static class EntityNo
{
    public const int MaxDigits = 18;

    public static bool TryParse(ReadOnlySpan<char> text, out long value)
    {
        value = 0;
        if (text.IsEmpty || text.Length > MaxDigits || text[0] == '0')
        {
            return false;
        }

        foreach (var c in text)
        {
            if (c is < '0' or > '9')
            {
                return false;
            }
        }

        return long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value) && value > 0;
    }

    public static long RequirePositive(long value, string paramName) =>
        value > 0 ? value : throw new ArgumentOutOfRangeException(paramName, value, "Must be greater than zero.");
}
