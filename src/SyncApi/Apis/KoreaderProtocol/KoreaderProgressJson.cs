using System.Globalization;
using System.Text.Json;
using Kobo.Sync.Domain.KoreaderProtocol;
using Kobo.Sync.Domain.Text;
using Kobo.Sync.SyncApi.Infrastructure.KoreaderProtocol;

namespace Kobo.Sync.SyncApi.Apis.KoreaderProtocol;

/// <summary>
/// The JSON of KOReader's progress calls, read and written as the reference server does
/// (app/controllers syncs_controller.lua <c>update_progress</c> and <c>get_progress</c>).
/// </summary>
internal static class KoreaderProgressJson
{
    public const int MaxDocumentLength = 128;
    public const int MaxProgressLength = 2_048;
    public const int MaxDeviceLength = 256;

    /// <summary>A document as a key: not empty and without <c>:</c> (the reference's <c>is_valid_key_field</c>).</summary>
    public static bool IsKey(string? document) => !string.IsNullOrEmpty(document) && !document.Contains(':', StringComparison.Ordinal);

    /// <summary>A document the read route can serve: letters, digits and <c>_</c> (the reference's <c>is_servable_document</c>).</summary>
    public static bool IsServable(string document) =>
        document.Length <= MaxDocumentLength && document.All(c => char.IsAsciiLetterOrDigit(c) || c == '_');

    /// <summary>The PUT body as a <see cref="KoreaderPut"/>, or the reference server's error for it.</summary>
    public static KoreaderPut Read(JsonElement body, out KoreaderError? error)
    {
        error = null;
        if (body.ValueKind != JsonValueKind.Object)
        {
            error = KoreaderErrors.InvalidFields;
            return null!;
        }

        var document = Text(body, "document");
        if (!IsKey(document))
        {
            error = KoreaderErrors.DocumentMissing;
            return null!;
        }

        if (!IsServable(document!))
        {
            error = KoreaderErrors.DocumentNotServable;
            return null!;
        }

        IReadOnlyList<KoreaderIdentifier>? identifiers = null;
        if (body.TryGetProperty("identifiers", out var list) && list.ValueKind != JsonValueKind.Null)
        {
            identifiers = Identifiers(list, document!);
            if (identifiers is null)
            {
                error = KoreaderErrors.InvalidFields;
                return null!;
            }
        }

        var progress = Text(body, "progress");
        var device = Text(body, "device");
        string? deviceId = null;
        var deviceIdOk = !body.TryGetProperty("device_id", out var id) || id.ValueKind == JsonValueKind.Null
            || (id.ValueKind == JsonValueKind.String && (deviceId = Text(body, "device_id")) is not null);
        if (Percentage(body) is not { } percentage || progress is null || device is null || !deviceIdOk
            || progress.Length > MaxProgressLength || StorableText.Problem(progress) is not null
            || device.Length > MaxDeviceLength || StorableText.Problem(device) is not null
            || (deviceId is not null && (deviceId.Length > MaxDeviceLength || StorableText.Problem(deviceId) is not null)))
        {
            error = KoreaderErrors.InvalidFields;
            return null!;
        }

        return new KoreaderPut(document!, progress, percentage == 0 ? 0 : percentage, device, deviceId, identifiers);
    }

    public static void Write(Utf8JsonWriter json, KoreaderProgressView? view)
    {
        json.WriteStartObject();
        if (view is not null)
        {
            json.WriteNumber("percentage", view.Percentage);
            json.WriteString("progress", view.Progress);
            json.WriteString("device", view.Device);
            if (view.DeviceId is { } deviceId)
            {
                json.WriteString("device_id", deviceId);
            }

            json.WriteNumber("timestamp", view.Timestamp);
            json.WriteString("document", view.Document);
            if (view.Match is { } match)
            {
                json.WriteString("match", match);
            }

            if (view.ProgressMatch is { } progressMatch)
            {
                json.WriteString("progress_match", progressMatch);
            }
        }

        json.WriteEndObject();
    }

    public static void Write(Utf8JsonWriter json, KoreaderPutResult result)
    {
        json.WriteStartObject();
        json.WriteString("document", result.Document);
        if (result.Match is { } match)
        {
            json.WriteString("match", match);
        }

        json.WriteNumber("timestamp", result.Timestamp);
        json.WriteEndObject();
    }

    // A string field; null when absent, not a string, or not text (an escaped lone surrogate).
    private static string? Text(JsonElement body, string name)
    {
        if (!body.TryGetProperty(name, out var value) || value.ValueKind != JsonValueKind.String)
        {
            return null;
        }

        try
        {
            return value.GetString();
        }
        catch (InvalidOperationException)
        {
            return null;
        }
    }

    // The reference reads it with Lua's tonumber: a number, or a string holding one. The fraction read: 0 to 1.
    private static double? Percentage(JsonElement body)
    {
        if (!body.TryGetProperty("percentage", out var value))
        {
            return null;
        }

        double number;
        if (value.ValueKind == JsonValueKind.Number)
        {
            number = value.GetDouble();
        }
        else if (value.ValueKind != JsonValueKind.String
            || !double.TryParse(value.GetString(), NumberStyles.Float, CultureInfo.InvariantCulture, out number))
        {
            return null;
        }

        return double.IsFinite(number) && number is >= 0 and <= 1 ? number : null;
    }

    private static List<KoreaderIdentifier>? Identifiers(JsonElement list, string document)
    {
        if (list.ValueKind != JsonValueKind.Array)
        {
            return null;
        }

        var identifiers = new List<KoreaderIdentifier>();
        foreach (var entry in list.EnumerateArray())
        {
            if (entry.ValueKind != JsonValueKind.Object || Text(entry, "type") is not { } type || Text(entry, "value") is not { } value)
            {
                return null;
            }

            identifiers.Add(new KoreaderIdentifier(type, value));
            if (identifiers.Count > KoreaderIdentifiers.MaxCount)
            {
                return null;
            }
        }

        return KoreaderIdentifiers.IsValidList(identifiers, document) ? identifiers : null;
    }
}
