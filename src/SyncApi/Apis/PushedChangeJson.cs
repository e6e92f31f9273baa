using System.Text.Json.Serialization;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Requests;
using Microsoft.AspNetCore.OpenApi;
using Microsoft.OpenApi;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// One change of a REST push as JSON carries it: <see cref="PushedChange"/> field for field, but with
/// <c>modifiedAt</c> kept as the text the device sent and free text read by
/// <see cref="DeviceTextJsonConverter"/>. So a time without an offset or out of range, or half a
/// surrogate pair in a text, rejects that change in validation (as over gRPC), not the whole body.
/// </summary>
public sealed record PushedChangeJson(
    string? Op,
    string? BookNo,
    string? Key,
    string? BaseVersion,
    [property: JsonConverter(typeof(DeviceTextJsonConverter))] string? Text,
    int? Start,
    int? Length,
    string? Color,
    [property: JsonConverter(typeof(DeviceTextJsonConverter))] string? Note,
    string? ModifiedAt,
    [property: JsonConverter(typeof(DeviceTextJsonConverter))] string? Location = null)
{
    public PushedChange ToDomain() => new(
        Op, BookNo, Key, BaseVersion, Text, Start, Length, Color, Note,
        ModifiedAt is null ? null : DeviceTime.FromText(ModifiedAt), Location);

    /// <summary>
    /// Describes the fields the OpenAPI generator cannot see through: text read by a converter is a
    /// string still, and <c>modifiedAt</c> text is a date and time.
    /// </summary>
    public static Task DescribeSchema(OpenApiSchema schema, OpenApiSchemaTransformerContext context, CancellationToken cancellationToken)
    {
        if (context.JsonPropertyInfo is { DeclaringType: var type, Name: var name } && type == typeof(PushedChangeJson))
        {
            if (context.JsonPropertyInfo.CustomConverter is DeviceTextJsonConverter)
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
}
