using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using Kobo.Sync.Domain.Text;

namespace Kobo.Sync.Domain.Requests;

/// <summary>
/// A device's time of an edit as the request carried it, not checked yet: seconds and nanoseconds since
/// the Unix epoch (gRPC's <c>google.protobuf.Timestamp</c>, whatever its values), or the text of a REST
/// body. <see cref="TryResolve"/> holds the one set of rules for both protocols.
/// </summary>
public readonly record struct DeviceTime
{
    /// <summary>The earliest time accepted: 1970-01-01T00:00:00Z.</summary>
    public static readonly DateTimeOffset Earliest = DateTimeOffset.UnixEpoch;

    /// <summary>The latest time accepted: 9999-12-31T23:59:59.999999Z (later ones are clamped to server time anyway).</summary>
    public static readonly DateTimeOffset Latest = new DateTimeOffset(9999, 12, 31, 23, 59, 59, TimeSpan.Zero).AddTicks(9_999_990);

    private const long LatestSecond = 253_402_300_799;
    private const int NanosPerSecond = 1_000_000_000;
    private const int NanosPerTick = 100;
    private const int ShownTextLength = 40;
    private static readonly string Range = $"{Format(Earliest)} to {Format(Latest)}";

    private readonly long _seconds;
    private readonly int _nanos;
    private readonly string? _text;

    private DeviceTime(long seconds, int nanos, string? text)
    {
        _seconds = seconds;
        _nanos = nanos;
        _text = text;
    }

    private enum TextForm
    {
        Instant,
        WithoutOffset,
        Unreadable,
    }

    /// <summary>A time as gRPC sends it: seconds since 1970-01-01T00:00:00Z and nanoseconds into that second.</summary>
    public static DeviceTime FromUnix(long seconds, int nanos) => new(seconds, nanos, null);

    /// <summary>A time as REST sends it: ISO 8601 text, checked only by <see cref="TryResolve"/>.</summary>
    public static DeviceTime FromText(string text) => new(0, 0, text ?? throw new ArgumentNullException(nameof(text)));

    public static DeviceTime FromInstant(DateTimeOffset at)
    {
        var seconds = Math.DivRem(at.UtcTicks - Earliest.UtcTicks, TimeSpan.TicksPerSecond, out var ticks);
        if (ticks < 0)
        {
            seconds--;
            ticks += TimeSpan.TicksPerSecond;
        }

        return FromUnix(seconds, (int)ticks * NanosPerTick);
    }

    /// <summary>
    /// The instant, or a reason naming <c>modifiedAt</c>. Accepted: an instant from <see cref="Earliest"/>
    /// to <see cref="Latest"/>; as text, <c>yyyy-MM-ddTHH:mm[:ss[.fraction]]</c> followed by an offset
    /// (<c>Z</c>, <c>±HH:mm</c> or <c>±HH</c>), since a time without one is a different instant in each
    /// time zone. PostgreSQL keeps microseconds, so the instant is cut to whole microseconds: what is
    /// stored, compared and sent back is exactly this value.
    /// </summary>
    public bool TryResolve(out DateTimeOffset at, [NotNullWhen(false)] out string? reason)
    {
        at = default;
        var (seconds, nanos) = (_seconds, _nanos);
        if (_text is not null)
        {
            var form = Parse(_text, out seconds, out nanos);
            reason = form switch
            {
                TextForm.WithoutOffset =>
                    $"modifiedAt: {Shown()} has no offset, so it names a different instant in each time zone; " +
                    $"send it with one (Z or ±hh:mm), such as 2026-11-22T01:00:00Z.",
                TextForm.Unreadable =>
                    $"modifiedAt: {Shown()} is not an ISO 8601 date and time with an offset, such as 2026-11-22T01:00:00Z.",
                _ => null,
            };
            if (reason is not null)
            {
                return false;
            }
        }

        if (nanos is < 0 or >= NanosPerSecond)
        {
            reason = $"modifiedAt: nanos must be from 0 to 999999999; it was {nanos}.";
            return false;
        }

        if (seconds is < 0 or > LatestSecond)
        {
            reason = $"modifiedAt: {Shown()} lies outside the accepted range, {Range}.";
            return false;
        }

        at = ToMicroseconds(Earliest.AddTicks((seconds * TimeSpan.TicksPerSecond) + (nanos / NanosPerTick)));
        reason = null;
        return true;
    }

    /// <summary><paramref name="at"/> cut to whole microseconds, the precision PostgreSQL keeps.</summary>
    public static DateTimeOffset ToMicroseconds(DateTimeOffset at) => at.AddTicks(-(at.UtcTicks % TimeSpan.TicksPerMicrosecond));

    private string Shown()
    {
        if (_text is null)
        {
            return string.Create(CultureInfo.InvariantCulture, $"seconds {_seconds}");
        }

        // Echoed only when short and harmless: a reason travels in JSON, gRPC trailers and logs.
        return _text.Length <= ShownTextLength && StorableText.IndexOfUnstorable(_text) < 0 && !_text.Any(char.IsControl)
            ? $"'{_text}'"
            : "the value";
    }

    private static string Format(DateTimeOffset at) => at.UtcDateTime.ToString(
        "yyyy-MM-dd'T'HH:mm:ss.FFFFFF'Z'", CultureInfo.InvariantCulture);

    // ISO 8601's extended format as RFC 3339 and System.Text.Json write it: yyyy-MM-ddTHH:mm[:ss[.fraction]],
    // then Z, ±HH:mm or ±HH. Fraction digits past the ninth are dropped.
    private static TextForm Parse(ReadOnlySpan<char> text, out long seconds, out int nanos)
    {
        seconds = 0;
        nanos = 0;
        if (text.Length < 16 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':'
            || !TryDigits(text[..4], out var year) || !TryDigits(text.Slice(5, 2), out var month)
            || !TryDigits(text.Slice(8, 2), out var day) || !TryDigits(text.Slice(11, 2), out var hour)
            || !TryDigits(text.Slice(14, 2), out var minute))
        {
            return TextForm.Unreadable;
        }

        var second = 0;
        var rest = text[16..];
        if (rest.StartsWith(':'))
        {
            if (rest.Length < 3 || !TryDigits(rest.Slice(1, 2), out second))
            {
                return TextForm.Unreadable;
            }

            rest = rest[3..];
            if (rest.StartsWith('.'))
            {
                var digits = rest[1..].IndexOfAnyExceptInRange('0', '9');
                digits = digits < 0 ? rest.Length - 1 : digits;
                if (digits == 0 || !TryDigits(rest.Slice(1, Math.Min(digits, 9)), out nanos))
                {
                    return TextForm.Unreadable;
                }

                for (var i = digits; i < 9; i++)
                {
                    nanos *= 10;
                }

                rest = rest[(1 + digits)..];
            }
        }

        if (year < 1 || month is < 1 or > 12 || day < 1 || day > DateTime.DaysInMonth(year, month)
            || hour > 23 || minute > 59 || second > 59)
        {
            return TextForm.Unreadable;
        }

        if (rest.IsEmpty)
        {
            return TextForm.WithoutOffset;
        }

        if (!TryOffset(rest, out var offsetMinutes))
        {
            return TextForm.Unreadable;
        }

        var local = new DateTime(year, month, day, hour, minute, second, DateTimeKind.Unspecified);
        seconds = ((local.Ticks - DateTime.UnixEpoch.Ticks) / TimeSpan.TicksPerSecond) - (offsetMinutes * 60L);
        return TextForm.Instant;
    }

    private static bool TryOffset(ReadOnlySpan<char> text, out int minutes)
    {
        minutes = 0;
        if (text is "Z")
        {
            return true;
        }

        var sign = text[0] switch { '+' => 1, '-' => -1, _ => 0 };
        var offsetMinute = 0;
        if (sign == 0 || text.Length is not (3 or 6)
            || !TryDigits(text.Slice(1, 2), out var offsetHour) || offsetHour > 23
            || (text.Length == 6 && (text[3] != ':' || !TryDigits(text.Slice(4, 2), out offsetMinute) || offsetMinute > 59)))
        {
            return false;
        }

        minutes = sign * ((offsetHour * 60) + offsetMinute);
        return true;
    }

    private static bool TryDigits(ReadOnlySpan<char> text, out int value) =>
        int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out value);
}
