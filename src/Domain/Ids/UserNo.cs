using System.Globalization;

namespace Kobo.Sync.Domain.Ids;

/// <summary>The number of a reader account.</summary>
public readonly record struct UserNo
{
    public UserNo(long value) => Value = EntityNo.RequirePositive(value, nameof(value));

    public long Value { get; }

    public static bool TryParse(ReadOnlySpan<char> text, out UserNo userNo)
    {
        var ok = EntityNo.TryParse(text, out var value);
        userNo = ok ? new UserNo(value) : default;
        return ok;
    }

    public override string ToString() => Value.ToString(CultureInfo.InvariantCulture);
}
