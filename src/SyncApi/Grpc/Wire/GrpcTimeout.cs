using System.Globalization;

namespace Kobo.Sync.SyncApi.Grpc.Wire;

/// <summary>
/// The <c>grpc-timeout</c> header: at most 8 ASCII digits and one unit, H (hours), M (minutes),
/// S (seconds), m (milliseconds), u (microseconds) or n (nanoseconds).
/// </summary>
public static class GrpcTimeout
{
    private const int MaxDigits = 8;
    private const long MaxValue = 99_999_999;

    public static bool TryParse(ReadOnlySpan<char> text, out TimeSpan timeout)
    {
        timeout = default;
        if (text.Length < 2 || text.Length > MaxDigits + 1)
        {
            return false;
        }

        var digits = text[..^1];
        foreach (var c in digits)
        {
            if (!char.IsAsciiDigit(c))
            {
                return false;
            }
        }

        var value = long.Parse(digits, NumberStyles.None, CultureInfo.InvariantCulture);
        long? ticks = text[^1] switch
        {
            'H' => value * TimeSpan.TicksPerHour,
            'M' => value * TimeSpan.TicksPerMinute,
            'S' => value * TimeSpan.TicksPerSecond,
            'm' => value * TimeSpan.TicksPerMillisecond,
            'u' => value * TimeSpan.TicksPerMicrosecond,
            // A tick is 100 ns; round up so a tiny timeout never becomes "no time at all" by truncation.
            'n' => (value + 99) / 100,
            _ => null,
        };
        if (ticks is null)
        {
            return false;
        }

        timeout = TimeSpan.FromTicks(ticks.Value);
        return true;
    }

    /// <summary>The header value for <paramref name="timeout"/>, in the finest unit that fits in 8 digits, rounded up.</summary>
    public static string Format(TimeSpan timeout)
    {
        var ticks = Math.Max(0, timeout.Ticks);
        foreach (var (unit, ticksPerUnit) in Units)
        {
            var value = (ticks + ticksPerUnit - 1) / ticksPerUnit;
            if (value <= MaxValue)
            {
                return value.ToString(CultureInfo.InvariantCulture) + unit;
            }
        }

        return MaxValue.ToString(CultureInfo.InvariantCulture) + "H";
    }

    private static readonly (char Unit, long TicksPerUnit)[] Units =
    [
        ('u', TimeSpan.TicksPerMicrosecond),
        ('m', TimeSpan.TicksPerMillisecond),
        ('S', TimeSpan.TicksPerSecond),
        ('M', TimeSpan.TicksPerMinute),
        ('H', TimeSpan.TicksPerHour),
    ];
}
