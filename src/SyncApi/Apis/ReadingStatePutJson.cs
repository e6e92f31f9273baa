using System.Text.Json.Serialization;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Requests;
using Microsoft.AspNetCore.OpenApi;
using Microsoft.OpenApi;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// A REST put of a reading state: <see cref="PushedReadingState"/> group for group, with each
/// <c>modifiedAt</c> kept as the text the device sent and free text read by
/// <see cref="DeviceTextJsonConverter"/>, so a bad time or half a surrogate pair is refused by validation
/// with the field it is in, as over gRPC.
/// </summary>
public sealed record ReadingStatePutJson(ReadingPositionJson? Position, ReadingStatusJson? Status, ReadingStatisticsJson? Statistics)
{
    public PushedReadingState ToDomain() => new(
        Position is { } p ? new PushedPosition(p.Percent, p.Location, Time(p.ModifiedAt)) : null,
        Status is { } s ? new PushedStatus(s.Value, Time(s.ModifiedAt)) : null,
        Statistics is { } t ? new PushedStatistics(t.TimeSpentMinutes, Time(t.ModifiedAt)) : null);

    /// <summary>
    /// Describes what the OpenAPI generator cannot see through, as <see cref="PushedChangeJson.DescribeSchema"/>
    /// does for a push: text read by a converter is a string still, and a group's <c>modifiedAt</c> text is a date and time.
    /// </summary>
    public static Task DescribeSchema(OpenApiSchema schema, OpenApiSchemaTransformerContext context, CancellationToken cancellationToken)
    {
        if (context.JsonPropertyInfo is { DeclaringType: var type, Name: var name } property
            && (type == typeof(ReadingPositionJson) || type == typeof(ReadingStatusJson) || type == typeof(ReadingStatisticsJson)))
        {
            if (property.CustomConverter is DeviceTextJsonConverter)
            {
                schema.Type = JsonSchemaType.String | JsonSchemaType.Null;
            }
            else if (name == "modifiedAt")
            {
                schema.Format = "date-time";
            }
        }

        return Task.CompletedTask;
    }

    private static DeviceTime? Time(string? text) => text is null ? null : DeviceTime.FromText(text);
}

/// <summary>The position group: <c>{ "percent": 42.5, "location": "...", "modifiedAt": "..." }</c>.</summary>
public sealed record ReadingPositionJson(
    double? Percent, [property: JsonConverter(typeof(DeviceTextJsonConverter))] string? Location, string? ModifiedAt);

/// <summary>The status group: <c>{ "value": "reading", "modifiedAt": "..." }</c>.</summary>
public sealed record ReadingStatusJson([property: JsonConverter(typeof(DeviceTextJsonConverter))] string? Value, string? ModifiedAt);

/// <summary>The statistics group: <c>{ "timeSpentMinutes": 95, "modifiedAt": "..." }</c>.</summary>
public sealed record ReadingStatisticsJson(int? TimeSpentMinutes, string? ModifiedAt);
