using Kobo.Sync.Domain.Text;

namespace Kobo.Sync.Domain.Ids;

/// <summary>
/// The ids devices are known by (a token's <c>did</c>, a revoked device): 1 to <see cref="MaxLength"/>
/// UTF-16 code units, without control characters (U+0000-U+001F, U+007F-U+009F) or unpaired surrogates.
/// The store could keep every control character but U+0000; the others are refused too because an id
/// also ends up in logs, metrics partitions and device lists, where they only do harm.
/// </summary>
public static class DeviceIds
{
    public const int MaxLength = 128;

    /// <summary>The rule, for messages that refuse an id.</summary>
    public static readonly string Rule = $"1 to {MaxLength} characters, without control characters or unpaired surrogates";

    public static bool IsValid(ReadOnlySpan<char> id)
    {
        if (id.IsEmpty || id.Length > MaxLength || StorableText.IndexOfUnstorable(id) >= 0)
        {
            return false;
        }

        foreach (var c in id)
        {
            if (char.IsControl(c))
            {
                return false;
            }
        }

        return true;
    }
}
