namespace Kobo.Sync.Domain.Ids;

/// <summary>
/// The device-chosen part of a highlight id: 1 to 64 characters of <c>[A-Za-z0-9_-]</c>.
/// Because the device picks it, re-sending the same highlight lands on the same document.
/// </summary>
public readonly record struct HighlightKey
{
    public const int MaxLength = 64;

    private readonly string? _value;

    private HighlightKey(string value) => _value = value;

    public string Value => _value ?? throw new InvalidOperationException("An empty HighlightKey has no value.");

    public static HighlightKey Parse(string text) =>
        TryParse(text, out var key)
            ? key
            : throw new FormatException($"'{text}' is not a highlight key: 1-{MaxLength} characters of A-Z, a-z, 0-9, '_' or '-'.");

    public static bool TryParse(ReadOnlySpan<char> text, out HighlightKey key)
    {
        key = default;
        if (text.IsEmpty || text.Length > MaxLength)
        {
            return false;
        }

        foreach (var c in text)
        {
            if (!IsKeyChar(c))
            {
                return false;
            }
        }

        key = new HighlightKey(text.ToString());
        return true;
    }

    public override string ToString() => _value ?? string.Empty;

    private static bool IsKeyChar(char c) =>
        c is (>= 'a' and <= 'z') or (>= 'A' and <= 'Z') or (>= '0' and <= '9') or '_' or '-';
}
