using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Sync;

namespace Kobo.Sync.SyncApi.Apis.Kobo;

/// <summary>
/// The native reading state in the Kobo store's shape, and back. <c>CurrentBookmark</c> is the position
/// (<c>ProgressPercent</c>; the Kobo <c>Location</c> object is kept as the location, exactly as sent, and
/// returned as it came), <c>StatusInfo</c> the status (<c>ReadyToRead</c>, <c>Reading</c>,
/// <c>Finished</c>), <c>Statistics</c> the time spent (<c>SpentReadingMinutes</c>); each carries its
/// group's device time as <c>LastModified</c>. A group never written is left out.
/// </summary>
internal static class KoboReadingStates
{
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

    /// <summary>One state as the device reads it (in GET's array and in a <c>ChangedReadingState</c>).</summary>
    public static void Write(Utf8JsonWriter json, ReadingState state, DateTimeOffset now)
    {
        var modified = KoboJson.Timestamp(state.ModifiedAt ?? now);
        json.WriteStartObject();
        json.WriteString("EntitlementId", BookUuid.Format(state.Book));
        json.WriteString("Created", modified);
        json.WriteString("LastModified", modified);
        json.WriteString("PriorityTimestamp", modified);
        if (state.Status is { } status && ToKoboStatus(status.Value) is { } koboStatus)
        {
            json.WriteStartObject("StatusInfo");
            json.WriteString("LastModified", KoboJson.Timestamp(status.ModifiedAt));
            json.WriteString("Status", koboStatus);
            json.WriteNumber("TimesStartedReading", status.Value == ReadingStatuses.Ready ? 0 : 1);
            json.WriteEndObject();
        }

        if (state.Statistics is { } statistics)
        {
            json.WriteStartObject("Statistics");
            json.WriteString("LastModified", KoboJson.Timestamp(statistics.ModifiedAt));
            json.WriteNumber("SpentReadingMinutes", statistics.TimeSpentMinutes);
            json.WriteEndObject();
        }

        if (state.Position is { } position)
        {
            json.WriteStartObject("CurrentBookmark");
            json.WriteString("LastModified", KoboJson.Timestamp(position.ModifiedAt));
            json.WriteNumber("ProgressPercent", position.Percent);
            if (position.Location is { } location && IsJsonObject(location))
            {
                json.WritePropertyName("Location");
                json.WriteRawValue(location, skipInputValidation: true);
            }

            json.WriteEndObject();
        }

        json.WriteEndObject();
    }

    /// <summary>
    /// The first of <c>ReadingStates</c> of a PUT, as a native put: each group with its own
    /// <c>LastModified</c>, else the state's, else <paramref name="now"/>. Unknown statuses and a bookmark
    /// without a percent carry no group. Null when the body is not the expected shape.
    /// </summary>
    public static PushedReadingState? Read(JsonElement body, DateTimeOffset now)
    {
        if (body.ValueKind != JsonValueKind.Object
            || !body.TryGetProperty("ReadingStates", out var states) || states.ValueKind != JsonValueKind.Array
            || states.GetArrayLength() == 0 || states[0] is not { ValueKind: JsonValueKind.Object } state)
        {
            return null;
        }

        var stateTime = Time(state, null, now);
        PushedPosition? position = null;
        if (Object(state, "CurrentBookmark") is { } bookmark && Number(bookmark, "ProgressPercent") is { } percent)
        {
            var location = Object(bookmark, "Location") is { } koboLocation ? koboLocation.GetRawText() : null;
            position = new PushedPosition(percent, location, Time(bookmark, stateTime, now));
        }

        PushedStatus? status = null;
        if (Object(state, "StatusInfo") is { } info
            && info.TryGetProperty("Status", out var value) && value.ValueKind == JsonValueKind.String
            && FromKoboStatus(value.GetString()) is { } native)
        {
            status = new PushedStatus(native, Time(info, stateTime, now));
        }

        PushedStatistics? statistics = null;
        if (Object(state, "Statistics") is { } stats && Number(stats, "SpentReadingMinutes") is { } minutes
            && double.IsFinite(minutes) && minutes is >= 0 and <= int.MaxValue)
        {
            statistics = new PushedStatistics((int)minutes, Time(stats, stateTime, now));
        }

        return new PushedReadingState(position, status, statistics);
    }

    private static bool IsJsonObject(string text) => text.Length > 1 && text[0] == '{';

    private static JsonElement? Object(JsonElement parent, string name) =>
        parent.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.Object ? value : null;

    private static double? Number(JsonElement parent, string name) =>
        parent.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.Number && value.TryGetDouble(out var number) ? number : null;

    private static DeviceTime Time(JsonElement parent, DeviceTime? fallback, DateTimeOffset now) =>
        parent.TryGetProperty("LastModified", out var value) && value.ValueKind == JsonValueKind.String && value.GetString() is { Length: > 0 } text
            ? DeviceTime.FromText(text)
            : fallback ?? DeviceTime.FromInstant(now);
}
