using System.Globalization;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Domain.Text;

namespace Kobo.Sync.Domain.ReadingStates;

/// <summary>
/// Checks a put of a reading state. Unlike a batch of highlight changes, a put is one change: the first
/// broken field refuses it whole (<see cref="InvalidRequestException"/> naming the field, such as
/// <c>position.percent</c>), and nothing is stored.
/// </summary>
public static class ReadingStateValidation
{
    public const double MaxPercent = 100;
    public const int MaxLocationLength = 2_048;
    public const string BodyField = "body";

    public static ValidReadingState Check(PushedReadingState? put, DateTimeOffset now, TimeSpan maxClockSkew)
    {
        if (put is null || (put.Position is null && put.Status is null && put.Statistics is null))
        {
            throw new InvalidRequestException(BodyField, "A reading state put carries at least one of position, status and statistics.");
        }

        ReadingPosition? position = null;
        if (put.Position is { } p)
        {
            if (p.Percent is not { } percent)
            {
                throw Invalid("position.percent", "is required in a position: a number from 0 to 100.");
            }

            if (!double.IsFinite(percent) || percent is < 0 or > MaxPercent)
            {
                throw Invalid("position.percent", $"must be a number from 0 to 100; it was {Shown(percent)}.");
            }

            if (p.Location is { } location)
            {
                if (location.Length > MaxLocationLength)
                {
                    throw Invalid(
                        "position.location", $"must have at most {MaxLocationLength} UTF-16 code units; it has {location.Length}.");
                }

                if (StorableText.Problem(location) is { } problem)
                {
                    throw Invalid("position.location", problem + ".");
                }
            }

            // -0 and 0 are one position: store the one PostgreSQL and JSON agree on.
            position = new ReadingPosition(percent == 0 ? 0 : percent, p.Location, Time("position", p.ModifiedAt, now, maxClockSkew));
        }

        ReadingStatusMark? status = null;
        if (put.Status is { } s)
        {
            if (!ReadingStatuses.IsKnown(s.Value))
            {
                throw Invalid(
                    "status.value",
                    $"must be '{ReadingStatuses.Ready}', '{ReadingStatuses.Reading}' or '{ReadingStatuses.Finished}'.");
            }

            status = new ReadingStatusMark(s.Value!, Time("status", s.ModifiedAt, now, maxClockSkew));
        }

        ReadingStatistics? statistics = null;
        if (put.Statistics is { } t)
        {
            if (t.TimeSpentMinutes is not { } minutes)
            {
                throw Invalid("statistics.timeSpentMinutes", "is required in statistics: a whole number of minutes, 0 or more.");
            }

            if (minutes < 0)
            {
                throw Invalid("statistics.timeSpentMinutes", $"must be 0 or more; it was {minutes}.");
            }

            statistics = new ReadingStatistics(minutes, Time("statistics", t.ModifiedAt, now, maxClockSkew));
        }

        return new ValidReadingState(position, status, statistics);
    }

    // The device's time of the group's write, with the rules of a highlight's modifiedAt; a time too far
    // ahead of the server's clock is replaced by server time, so a fast clock cannot win every later put.
    private static DateTimeOffset Time(string group, DeviceTime? sent, DateTimeOffset now, TimeSpan maxClockSkew)
    {
        var field = group + ".modifiedAt";
        if (sent is not { } time)
        {
            throw Invalid(field, "is required: the device time of this group's change (ISO 8601 with an offset).");
        }

        if (!time.TryResolve(out var at, out var reason))
        {
            const string Prefix = "modifiedAt: ";
            throw new InvalidRequestException(
                field, $"{field}: {(reason.StartsWith(Prefix, StringComparison.Ordinal) ? reason[Prefix.Length..] : reason)}");
        }

        return at > now + maxClockSkew ? DeviceTime.ToMicroseconds(now) : at;
    }

    private static string Shown(double value) => value.ToString("R", CultureInfo.InvariantCulture);

    private static InvalidRequestException Invalid(string field, string message) => new(field, $"{field} {message}");
}
