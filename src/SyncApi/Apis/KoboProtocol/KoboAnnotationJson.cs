using System.Globalization;
using System.Text.Json;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// The reading-services JSON of annotations, read and written by hand: the <c>location</c> member must
/// travel as the exact text the device sent, which a serializer would re-encode.
/// </summary>
internal static class KoboAnnotationJson
{
    private static readonly JsonDocumentOptions Options = new() { MaxDepth = 32 };

    /// <summary>A PATCH body, nested at most 32 deep (an annotation is a few levels), or a 400.</summary>
    public static Task<JsonDocument> ReadAsync(HttpRequest request, CancellationToken cancellationToken) =>
        KoboJson.ReadBodyAsync(request, cancellationToken, Options);

    /// <summary>The <c>updatedAnnotations</c> and <c>deletedAnnotationIds</c> of a PATCH body.</summary>
    public static (List<KoboAnnotation?> Updated, List<string?> Deleted) ReadPatch(JsonElement body)
    {
        if (body.ValueKind != JsonValueKind.Object)
        {
            throw new InvalidRequestException("body", "The body must be a JSON object with updatedAnnotations and deletedAnnotationIds.");
        }

        var updated = new List<KoboAnnotation?>();
        foreach (var item in Array(body, "updatedAnnotations"))
        {
            updated.Add(item.ValueKind == JsonValueKind.Object ? Annotation(item) : null);
        }

        var deleted = new List<string?>();
        foreach (var item in Array(body, "deletedAnnotationIds"))
        {
            deleted.Add(item.ValueKind == JsonValueKind.String ? KoboJson.StringOf(item) : null);
        }

        return (updated, deleted);
    }

    /// <summary>The <c>[{ "ContentId": ..., "etag": ... }]</c> of a checkforchanges body (member names in any case).</summary>
    public static List<(string? ContentId, string? ETag)> ReadCheck(JsonElement body)
    {
        if (body.ValueKind != JsonValueKind.Array)
        {
            throw new InvalidRequestException("body", "The body must be a JSON array of { ContentId, etag }.");
        }

        var asked = new List<(string?, string?)>(body.GetArrayLength());
        foreach (var item in body.EnumerateArray())
        {
            asked.Add(item.ValueKind == JsonValueKind.Object ? (Text(item, "ContentId"), Text(item, "etag")) : (null, null));
        }

        return asked;
    }

    /// <summary>Writes a book's annotations: <c>{ "annotations": [...], "nextPageOffsetToken": null }</c>, every one complete.</summary>
    public static void WriteSet(Utf8JsonWriter writer, IEnumerable<HighlightView> highlights)
    {
        writer.WriteStartObject();
        writer.WriteStartArray("annotations");
        foreach (var highlight in highlights)
        {
            var key = highlight.Id[(highlight.Id.LastIndexOf('/') + 1)..];
            writer.WriteStartObject();
            writer.WriteString("id", key);
            writer.WriteString("type", KoboAnnotationMapping.TypeOf(highlight.Note));
            writer.WriteString("highlightedText", highlight.Text);
            if (!string.IsNullOrEmpty(highlight.Note))
            {
                writer.WriteString("noteText", highlight.Note);
            }

            writer.WriteString("highlightColor", KoboColors.ToWire(highlight.Color));
            writer.WriteString(
                "clientLastModifiedUtc",
                highlight.ModifiedAt.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.FFFFFFF'Z'", CultureInfo.InvariantCulture));
            writer.WritePropertyName("location");
            writer.WriteRawValue(highlight.Location!, skipInputValidation: true);
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteNull("nextPageOffsetToken");
        writer.WriteEndObject();
    }

    /// <summary>
    /// True when a device can be given the highlight: its key is an annotation id and its location a JSON
    /// object (a highlight pushed natively may carry any text there, or a key of its own).
    /// </summary>
    public static bool IsServable(HighlightView highlight) =>
        highlight.Location is { } location
        && KoboAnnotationMapping.IsAnnotationId(highlight.Id[(highlight.Id.LastIndexOf('/') + 1)..])
        && HighlightLocation.IsJsonObject(location);

    private static KoboAnnotation Annotation(JsonElement item)
    {
        string? malformed = null;
        string? Field(string name)
        {
            if (!item.TryGetProperty(name, out var value) || value.ValueKind == JsonValueKind.Null)
            {
                return null;
            }

            if (value.ValueKind == JsonValueKind.String && KoboJson.StringOf(value) is { } text)
            {
                return text;
            }

            malformed ??= name;
            return null;
        }

        var id = Field("id");
        var type = Field("type");
        var text = Field("highlightedText");
        var note = Field("noteText");
        var color = Field("highlightColor");
        var at = Field("clientLastModifiedUtc");
        var hasLocation = item.TryGetProperty("location", out var location) && location.ValueKind != JsonValueKind.Null;
        return new KoboAnnotation(
            id, type, text, note, color, at, hasLocation ? location.GetRawText() : null,
            hasLocation && location.ValueKind == JsonValueKind.Object, malformed);
    }

    private static JsonElement.ArrayEnumerator Array(JsonElement body, string name)
    {
        if (!body.TryGetProperty(name, out var value) || value.ValueKind == JsonValueKind.Null)
        {
            return default;
        }

        return value.ValueKind == JsonValueKind.Array
            ? value.EnumerateArray()
            : throw new InvalidRequestException(name, $"{name} must be a JSON array.");
    }

    private static string? Text(JsonElement item, string name)
    {
        foreach (var member in item.EnumerateObject())
        {
            if (string.Equals(member.Name, name, StringComparison.OrdinalIgnoreCase))
            {
                return member.Value.ValueKind == JsonValueKind.String ? KoboJson.StringOf(member.Value) : null;
            }
        }

        return null;
    }
}
