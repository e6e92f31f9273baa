using System.Globalization;

namespace Kobo.Sync.Domain.Ids;

/// <summary>The number of a book in the catalogue.</summary>
public readonly record struct BookNo
{
    public BookNo(long value) => Value = EntityNo.RequirePositive(value, nameof(value));

    public long Value { get; }

    public static bool TryParse(ReadOnlySpan<char> text, out BookNo bookNo)
    {
        var ok = EntityNo.TryParse(text, out var value);
        bookNo = ok ? new BookNo(value) : default;
        return ok;
    }

    public override string ToString() => Value.ToString(CultureInfo.InvariantCulture);
}
