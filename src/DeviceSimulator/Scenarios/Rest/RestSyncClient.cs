using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using Kobo.Sync.DeviceSimulator.Devices;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Rest;

/// <summary>A page of a pull as the device keeps it: how many changes, the token to send next, whether more wait.</summary>
public sealed record PulledPage(int Changes, string SyncToken, bool HasMore);

/// <summary>A device's device-sync calls over REST: <c>GET</c> and <c>POST /v1/users/{n}/changes</c>, with the device's own token.</summary>
public sealed class RestSyncClient(HttpClient http, DeviceTokens tokens)
{
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

        return (attempt, new PulledPage(changes.GetArrayLength(), syncToken, hasMore.GetBoolean()));
    }

    /// <summary>Pushes a batch; the ids the service gave each change, or a failed attempt when a change was not stored.</summary>
    public async ValueTask<(SyncAttempt Attempt, IReadOnlyList<string>? Ids)> PushAsync(
        long userNo, string changesJson, SimulatedDevice device, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, FormattableString.Invariant($"/v1/users/{userNo}/changes"))
        {
            Content = new StringContent(changesJson, Encoding.UTF8, "application/json"),
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
