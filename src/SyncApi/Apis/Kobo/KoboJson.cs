using System.Globalization;
using System.Text.Json.Nodes;

namespace Kobo.Sync.SyncApi.Apis.Kobo;

/// <summary>How the Kobo front writes its answers: JSON in UTF-8, Kobo's timestamp format.</summary>
internal static class KoboJson
{
    public const string ContentType = "application/json; charset=utf-8";

    /// <summary>calibre-web's note: the device expects <c>Content-Type: application/json; charset=utf-8</c>.</summary>
    public static IResult Of(JsonNode node, int statusCode = StatusCodes.Status200OK) =>
        TypedResults.Text(node.ToJsonString(), ContentType, statusCode: statusCode);

    /// <summary>An empty object: the answer to a store call this service does not serve.</summary>
    public static IResult Empty() => TypedResults.Text("{}", ContentType);

    /// <summary>UTC, whole seconds, "Z": the form Kobo's own answers use.</summary>
    public static string Timestamp(DateTimeOffset at) =>
        at.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", CultureInfo.InvariantCulture);
}
