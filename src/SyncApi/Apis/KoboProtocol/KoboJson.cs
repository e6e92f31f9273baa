using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>How the Kobo front writes its answers: JSON in UTF-8, Kobo's timestamp format.</summary>
internal static class KoboJson
{
    public const string ContentType = "application/json; charset=utf-8";

    /// <summary>calibre-web's note: the device expects <c>Content-Type: application/json; charset=utf-8</c>.</summary>
    public static IResult Of(JsonNode node, int statusCode = StatusCodes.Status200OK) =>
        TypedResults.Text(node.ToJsonString(), ContentType, statusCode: statusCode);

    /// <summary>
    /// A 200 whose body is a JSON array of the items <paramref name="writeItems"/> writes, written
    /// straight into the response's writer: a library page (about 180 KB for 100 books) never passes
    /// through a growing array of its own, which took several large-object-heap arrays a page.
    /// </summary>
    public static IResult Array(Action<Utf8JsonWriter> writeItems) => new JsonArrayResult(writeItems);

    private sealed class JsonArrayResult(Action<Utf8JsonWriter> writeItems) : IResult
    {
        public async Task ExecuteAsync(HttpContext context)
        {
            var response = context.Response;
            response.StatusCode = StatusCodes.Status200OK;
            response.ContentType = ContentType;
            long length;
            using (var json = new Utf8JsonWriter(response.BodyWriter))
            {
                json.WriteStartArray();
                writeItems(json);
                json.WriteEndArray();
                json.Flush();
                length = json.BytesCommitted;
            }

            // Nothing has left yet (the answer is buffered until it is whole, or at least not flushed), so
            // the device gets a Content-Length, as it did when the body was one array.
            if (!response.HasStarted)
            {
                response.ContentLength = length;
            }

            await response.BodyWriter.FlushAsync(context.RequestAborted);
        }
    }

    /// <summary>An empty object: the answer to a store call this service does not serve.</summary>
    public static IResult Empty() => TypedResults.Text("{}", ContentType);

    /// <summary>
    /// A device's request body as JSON, read through the body's pipe (where the body arrival wait left
    /// it buffered), or a 400 <see cref="InvalidRequestException"/> for field <c>body</c> when it is not JSON.
    /// </summary>
    public static async Task<JsonDocument> ReadBodyAsync(
        HttpRequest request, CancellationToken cancellationToken, JsonDocumentOptions options = default)
    {
        try
        {
            return await JsonDocument.ParseAsync(request.BodyReader.AsStream(), options, cancellationToken);
        }
        catch (JsonException error)
        {
            throw new InvalidRequestException("body", $"The body is not JSON: {error.Message}");
        }
    }

    /// <summary>
    /// A JSON string's text, or null when it holds half a surrogate pair (an escape such as
    /// <c>"\ud800"</c>), which no text can carry: <see cref="JsonElement.GetString"/> throws on it, and a
    /// device's body must never make the service fail.
    /// </summary>
    public static string? StringOf(JsonElement value)
    {
        try
        {
            return value.GetString();
        }
        catch (InvalidOperationException)
        {
            return null;
        }
    }

    /// <summary>UTC, whole seconds, "Z": the form Kobo's own answers use.</summary>
    public static string Timestamp(DateTimeOffset at) =>
        at.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", CultureInfo.InvariantCulture);
}
