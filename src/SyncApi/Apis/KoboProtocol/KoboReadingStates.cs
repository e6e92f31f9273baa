using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// The native reading state in the Kobo store's shape, and back. <c>CurrentBookmark</c> is the position
/// (<c>ProgressPercent</c>; the Kobo <c>Location</c> object is kept as the location, exactly as sent, and
/// returned as it came), <c>StatusInfo</c> the status (<c>ReadyToRead</c>, <c>Reading</c>,
/// <c>Finished</c>), <c>Statistics</c> the time spent (<c>SpentReadingMinutes</c>); each carries its
/// group's device time as <c>LastModified</c>. As calibre-web and Komga send it, a state always carries
/// the three groups: a group no device has written is the one of a book never opened, dated from the
/// book's arrival in the library, which is also the state's <c>Created</c>.
/// </summary>
internal static class KoboReadingStates
{
    /// <summary>The state of a PUT, as its fields are named in a refusal.</summary>
    public const string StatePath = "ReadingStates[0]";

    private const string BookmarkPath = StatePath + ".CurrentBookmark";
    private const string StatusPath = StatePath + ".StatusInfo";
    private const string StatisticsPath = StatePath + ".Statistics";

    /// <summary>Native field of <see cref="ReadingStateValidation"/> → the field of the Kobo body it came from.</summary>
    private static readonly Dictionary<string, string> KoboFields = new(StringComparer.Ordinal)
    {
        [ReadingStateValidation.BodyField] = StatePath,
        ["position.percent"] = BookmarkPath + ".ProgressPercent",
        ["position.location"] = BookmarkPath + ".Location",
        ["position.modifiedAt"] = BookmarkPath + ".LastModified",
        ["status.value"] = StatusPath + ".Status",
        ["status.modifiedAt"] = StatusPath + ".LastModified",
        ["statistics.timeSpentMinutes"] = StatisticsPath + ".SpentReadingMinutes",
        ["statistics.modifiedAt"] = StatisticsPath + ".LastModified",
    };

    public static string? ToKoboStatus(string status) => status switch
    {
        ReadingStatuses.Ready => "ReadyToRead",
        ReadingStatuses.Reading => "Reading",
        ReadingStatuses.Finished => "Finished",
        _ => null,
    };

    public static string? FromKoboStatus(string? status) => status switch
    {
        "ReadyToRead" => ReadingStatuses.Ready,
        "Reading" => ReadingStatuses.Reading,
        "Finished" => ReadingStatuses.Finished,
        _ => null,
    };

    /// <summary>
    /// One state as the device reads it (in GET's array, in an entitlement's <c>ReadingState</c> and in a
    /// <c>ChangedReadingState</c>). <c>Created</c> is <paramref name="acquiredAt"/>, when the book entered the
    /// user's library (calibre-web: the book's timestamp; Komga: the book's creation); <c>LastModified</c>
    /// and <c>PriorityTimestamp</c> are the latest device time of the groups, or <paramref name="acquiredAt"/>
    /// for a book never opened.
    /// </summary>
    public static void Write(Utf8JsonWriter json, BookNo book, ReadingState? state, DateTimeOffset acquiredAt)
    {
        var created = KoboJson.Timestamp(acquiredAt);
        var modified = state?.ModifiedAt is { } at ? KoboJson.Timestamp(at) : created;
        json.WriteStartObject();
        json.WriteString("EntitlementId", BookUuid.Format(book));
        json.WriteString("Created", created);
        json.WriteString("LastModified", modified);
        json.WriteString("PriorityTimestamp", modified);

        json.WriteStartObject("StatusInfo");
        if (state?.Status is { } status && ToKoboStatus(status.Value) is { } koboStatus)
        {
            json.WriteString("LastModified", KoboJson.Timestamp(status.ModifiedAt));
            json.WriteString("Status", koboStatus);
            json.WriteNumber("TimesStartedReading", status.Value == ReadingStatuses.Ready ? 0 : 1);
        }
        else
        {
            json.WriteString("LastModified", created);
            json.WriteString("Status", "ReadyToRead");
            json.WriteNumber("TimesStartedReading", 0);
        }

        json.WriteEndObject();

        // An unread book's statistics and bookmark carry only their time, as both servers send them.
        json.WriteStartObject("Statistics");
        if (state?.Statistics is { } statistics)
        {
            json.WriteString("LastModified", KoboJson.Timestamp(statistics.ModifiedAt));
            json.WriteNumber("SpentReadingMinutes", statistics.TimeSpentMinutes);
        }
        else
        {
            json.WriteString("LastModified", created);
        }

        json.WriteEndObject();

        json.WriteStartObject("CurrentBookmark");
        if (state?.Position is { } position)
        {
            json.WriteString("LastModified", KoboJson.Timestamp(position.ModifiedAt));
            json.WriteNumber("ProgressPercent", position.Percent);
            if (position.Location is { } location && IsJsonObject(location))
            {
                json.WritePropertyName("Location");
                json.WriteRawValue(location, skipInputValidation: true);
            }
        }
        else
        {
            json.WriteString("LastModified", created);
        }

        json.WriteEndObject();
        json.WriteEndObject();
    }

    /// <summary>
    /// The first of <c>ReadingStates</c> of a PUT, as a native put: each group with its own
    /// <c>LastModified</c>, else the state's, else <paramref name="now"/>. A group that is absent or
    /// <c>null</c>, a bookmark without <c>ProgressPercent</c>, a status info without <c>Status</c> and
    /// statistics without <c>SpentReadingMinutes</c> carry nothing. A member the device sends with a
    /// value of the wrong type (a percent or a minute count that is not a number, a status that is not
    /// one of the three, a time that is not one, a location that is not an object) refuses the PUT whole
    /// (<see cref="InvalidRequestException"/> naming the member, such as
    /// <c>ReadingStates[0].CurrentBookmark.ProgressPercent</c>). Members this service does not keep
    /// (<c>RemainingTimeMinutes</c>, <c>TimesStartedReading</c>, <c>PriorityTimestamp</c>) are not read.
    /// </summary>
    public static PushedReadingState Read(JsonElement body, DateTimeOffset now)
    {
        if (body.ValueKind != JsonValueKind.Object
            || !body.TryGetProperty("ReadingStates", out var states) || states.ValueKind != JsonValueKind.Array
            || states.GetArrayLength() == 0 || states[0] is not { ValueKind: JsonValueKind.Object } state)
        {
            throw new InvalidRequestException(
                "ReadingStates", "The body must carry ReadingStates, an array whose first item is the book's reading state.");
        }

        var stateTime = Time(state, StatePath) ?? DeviceTime.FromInstant(now);
        PushedPosition? position = null;
        if (Group(state, "CurrentBookmark", StatePath) is { } bookmark)
        {
            var percent = Number(bookmark, "ProgressPercent", BookmarkPath);
            _ = Number(bookmark, "ContentSourceProgressPercent", BookmarkPath);
            var location = Group(bookmark, "Location", BookmarkPath)?.GetRawText();
            var time = Time(bookmark, BookmarkPath) ?? stateTime;
            if (percent is not null)
            {
                position = new PushedPosition(percent, location, time);
            }
        }

        PushedStatus? status = null;
        if (Group(state, "StatusInfo", StatePath) is { } info)
        {
            var time = Time(info, StatusPath) ?? stateTime;
            if (Text(info, "Status", StatusPath) is { } value)
            {
                status = new PushedStatus(
                    FromKoboStatus(value) ?? throw Invalid(StatusPath + ".Status", "must be \"ReadyToRead\", \"Reading\" or \"Finished\"."),
                    time);
            }
        }

        PushedStatistics? statistics = null;
        if (Group(state, "Statistics", StatePath) is { } stats)
        {
            var time = Time(stats, StatisticsPath) ?? stateTime;
            if (Number(stats, "SpentReadingMinutes", StatisticsPath) is { } minutes)
            {
                if (minutes is < 0 or > int.MaxValue || Math.Floor(minutes) != minutes)
                {
                    throw Invalid(StatisticsPath + ".SpentReadingMinutes", "must be a whole number of minutes, 0 or more.");
                }

                statistics = new PushedStatistics((int)minutes, time);
            }
        }

        return new PushedReadingState(position, status, statistics);
    }

    /// <summary>
    /// The native checks of a put (<see cref="ReadingStateValidation"/>, the one rule of every front),
    /// with a refusal naming the field of the Kobo body rather than the native one.
    /// </summary>
    public static void Check(PushedReadingState put, DateTimeOffset now, TimeSpan maxClockSkew)
    {
        try
        {
            ReadingStateValidation.Check(put, now, maxClockSkew);
        }
        catch (InvalidRequestException refused) when (KoboFields.TryGetValue(refused.Field, out var field))
        {
            var message = refused.Message.StartsWith(refused.Field, StringComparison.Ordinal)
                ? field + refused.Message[refused.Field.Length..]
                : refused.Message;
            throw new InvalidRequestException(field, message);
        }
    }

    private static bool IsJsonObject(string text) => text.Length > 1 && text[0] == '{';

    /// <summary>An object member; null when absent or JSON null; any other value is refused.</summary>
    private static JsonElement? Group(JsonElement parent, string name, string path)
    {
        if (!parent.TryGetProperty(name, out var value) || value.ValueKind == JsonValueKind.Null)
        {
            return null;
        }

        return value.ValueKind == JsonValueKind.Object ? value : throw Invalid(path + "." + name, "must be an object.");
    }

    private static double? Number(JsonElement parent, string name, string path)
    {
        if (!parent.TryGetProperty(name, out var value) || value.ValueKind == JsonValueKind.Null)
        {
            return null;
        }

        return value.ValueKind == JsonValueKind.Number && value.TryGetDouble(out var number) && double.IsFinite(number)
            ? number
            : throw Invalid(path + "." + name, "must be a number.");
    }

    private static string? Text(JsonElement parent, string name, string path)
    {
        if (!parent.TryGetProperty(name, out var value) || value.ValueKind == JsonValueKind.Null)
        {
            return null;
        }

        return value.ValueKind == JsonValueKind.String
            ? KoboJson.StringOf(value) ?? throw Invalid(path + "." + name, "holds half a surrogate pair, which no text can carry.")
            : throw Invalid(path + "." + name, "must be a string.");
    }

    /// <summary>The object's <c>LastModified</c>, checked now so that a refusal names the member it came from; null when absent.</summary>
    private static DeviceTime? Time(JsonElement parent, string path)
    {
        var field = path + ".LastModified";
        if (Text(parent, "LastModified", path) is not { } text)
        {
            return null;
        }

        var time = DeviceTime.FromText(text);
        if (!time.TryResolve(out _, out var reason))
        {
            const string Prefix = "modifiedAt: ";
            throw new InvalidRequestException(
                field, $"{field}: {(reason.StartsWith(Prefix, StringComparison.Ordinal) ? reason[Prefix.Length..] : reason)}");
        }

        return time;
    }

    private static InvalidRequestException Invalid(string field, string message) => new(field, $"{field} {message}");
}
