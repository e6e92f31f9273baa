using System.Globalization;
using System.Net.Http.Headers;
using System.Text.Json;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Scenarios.Sync;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Rest;

/// <summary>
/// A device's device-sync calls over REST: <c>GET</c> and <c>POST /v1/users/{n}/changes</c>, with the device's own token.
/// </summary>
public sealed class RestSyncClient(HttpClient http, DeviceTokens tokens) : ISyncClient
{
    public Transport Transport => Transport.Rest;

    public async ValueTask<(SyncAttempt Attempt, PulledPage? Page)> PullAsync(
        long userNo, string? since, int pageSize, SimulatedDevice device, CancellationToken cancellationToken)
    {
        var path = since is null
            ? FormattableString.Invariant($"/v1/users/{userNo}/changes?pageSize={pageSize}")
            : FormattableString.Invariant($"/v1/users/{userNo}/changes?pageSize={pageSize}&since={Uri.EscapeDataString(since)}");
        using var request = new HttpRequestMessage(HttpMethod.Get, path);
        var (attempt, body) = await SendAsync(request, userNo, device, cancellationToken);
        if (body is null)
        {
            return (attempt, null);
        }

        using var document = body;
        var root = document.RootElement;
        if (!root.TryGetProperty("changes", out var changes) || changes.ValueKind != JsonValueKind.Array
            || !root.TryGetProperty("syncToken", out var token) || token.GetString() is not { Length: > 0 } syncToken
            || !root.TryGetProperty("hasMore", out var hasMore) || hasMore.ValueKind is not (JsonValueKind.True or JsonValueKind.False))
        {
            return (SyncAttempt.Permanent("bad pull page"), null);
        }

        var highlights = 0;
        foreach (var change in changes.EnumerateArray())
        {
            if (change.ValueKind == JsonValueKind.Object && change.TryGetProperty("kind", out var kind) && kind.ValueEquals("highlight"u8))
            {
                highlights++;
            }
        }

        return (attempt, new PulledPage(changes.GetArrayLength(), syncToken, hasMore.GetBoolean(), highlights));
    }

    public async ValueTask<(SyncAttempt Attempt, IReadOnlyList<string>? Ids)> PushAsync(
        long userNo, IReadOnlyList<NewHighlight> batch, SimulatedDevice device, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, FormattableString.Invariant($"/v1/users/{userNo}/changes"))
        {
            Content = new ByteArrayContent(Body(batch)) { Headers = { ContentType = new MediaTypeHeaderValue("application/json") } },
        };
        var (attempt, body) = await SendAsync(request, userNo, device, cancellationToken);
        if (body is null)
        {
            return (attempt, null);
        }

        using var document = body;
        var ids = new List<string>();
        foreach (var result in document.RootElement.GetProperty("results").EnumerateArray())
        {
            // applied, or unchanged when a same-seed run replays the batch; anything else was not stored.
            var status = result.GetProperty("status").GetString();
            if (status is not ("applied" or "unchanged"))
            {
                return (SyncAttempt.Permanent($"push {status}"), null);
            }

            ids.Add(result.GetProperty("id").GetString() ?? string.Empty);
        }

        return (attempt, ids);
    }

    public async ValueTask<SyncAttempt> PutReadingStateAsync(
        long userNo, long bookNo, double percent, DateTimeOffset modifiedAt, SimulatedDevice device, CancellationToken cancellationToken)
    {
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer))
        {
            json.WriteStartObject();
            json.WriteStartObject("position");
            json.WriteNumber("percent", percent);
            json.WriteString("modifiedAt", modifiedAt);
            json.WriteEndObject();
            json.WriteStartObject("status");
            json.WriteString("value", percent >= 100 ? "finished" : "reading");
            json.WriteString("modifiedAt", modifiedAt);
            json.WriteEndObject();
            json.WriteEndObject();
        }

        using var request = new HttpRequestMessage(
            HttpMethod.Put, FormattableString.Invariant($"/v1/users/{userNo}/books/{bookNo}/reading-state"))
        {
            Content = new ByteArrayContent(buffer.ToArray()) { Headers = { ContentType = new MediaTypeHeaderValue("application/json") } },
        };
        var (attempt, body) = await SendAsync(request, userNo, device, cancellationToken);
        body?.Dispose();
        return attempt;
    }

    private static byte[] Body(IReadOnlyList<NewHighlight> batch)
    {
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer))
        {
            json.WriteStartObject();
            json.WriteStartArray("changes");
            foreach (var h in batch)
            {
                json.WriteStartObject();
                json.WriteString("op", h.Delete ? "delete" : "upsert");
                json.WriteString("bookNo", h.BookNo.ToString(CultureInfo.InvariantCulture));
                json.WriteString("key", h.Key);
                if (!h.Delete)
                {
                    json.WriteString("text", h.Text);
                    json.WriteNumber("start", h.Start);
                    json.WriteNumber("length", h.Length);
                    json.WriteString("color", h.Color);
                    if (h.Note is not null)
                    {
                        json.WriteString("note", h.Note);
                    }
                }

                json.WriteString("modifiedAt", h.ModifiedAt);
                json.WriteEndObject();
            }

            json.WriteEndArray();
            json.WriteEndObject();
        }

        return buffer.ToArray();
    }

    private async ValueTask<(SyncAttempt Attempt, JsonDocument? Body)> SendAsync(
        HttpRequestMessage request, long userNo, SimulatedDevice device, CancellationToken cancellationToken)
    {
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", tokens.For(userNo, device));
        try
        {
            using var response = await http.SendAsync(request, HttpCompletionOption.ResponseContentRead, cancellationToken);
            var attempt = RestDeviceClient.Classify(response);
            if (!attempt.Ok)
            {
                return (attempt, null);
            }

            await using var stream = await response.Content.ReadAsStreamAsync(cancellationToken);
            return (attempt, await JsonDocument.ParseAsync(stream, cancellationToken: cancellationToken));
        }
        catch (HttpRequestException exception)
        {
            return (SyncAttempt.Transient($"connection: {exception.HttpRequestError}"), null);
        }
        catch (JsonException)
        {
            return (SyncAttempt.Permanent("bad json"), null);
        }
    }
}
