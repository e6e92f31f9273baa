using Kobo.Sync.Domain.Sync;
using Microsoft.AspNetCore.OpenApi;
using Microsoft.OpenApi;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// One change of a REST push as JSON carries it: <see cref="PushedChange"/> field for field, but with
/// <c>modifiedAt</c> kept as the text the device sent. So a time without an offset or out of range
/// rejects that change in validation (as over gRPC), not the whole body.
/// </summary>
public sealed record PushedChangeJson(
    string? Op,
    string? BookNo,
    string? Key,
    string? BaseVersion,
    string? Text,
    int? Start,
    int? Length,
    string? Color,
    string? Note,
    string? ModifiedAt)
{
    public PushedChange ToDomain() => new(
        Op, BookNo, Key, BaseVersion, Text, Start, Length, Color, Note, ModifiedAt is null ? null : DeviceTime.FromText(ModifiedAt));

    /// <summary>Describes what the OpenAPI generator cannot see: <c>modifiedAt</c> text is a date and time.</summary>
    public static Task DescribeSchema(OpenApiSchema schema, OpenApiSchemaTransformerContext context, CancellationToken cancellationToken)
    {
        if (context.JsonPropertyInfo is { DeclaringType: var type, Name: "modifiedAt" } && type == typeof(PushedChangeJson))
        {
            schema.Format = "date-time";
        }

        return Task.CompletedTask;
    }
}
