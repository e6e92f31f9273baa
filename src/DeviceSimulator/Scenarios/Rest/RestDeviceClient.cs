using System.Globalization;
using System.Net;
using System.Net.Http.Headers;
using Kobo.Sync.DeviceSimulator.Devices;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Rest;

/// <summary>A device's REST calls: a bearer token, a GET, the whole body read, the status as the device's retry policy sees it.</summary>
public sealed class RestDeviceClient(HttpClient http, DeviceTokens tokens)
{
    public async ValueTask<SyncAttempt> GetAsync(string path, long userNo, SimulatedDevice device, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, path);
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", tokens.For(userNo, device));
        try
        {
            using var response = await http.SendAsync(request, HttpCompletionOption.ResponseContentRead, cancellationToken);
            return Classify(response);
        }
        catch (HttpRequestException exception)
        {
            return SyncAttempt.Transient($"connection: {exception.HttpRequestError}");
        }
    }

    /// <summary>429 and 503 are retried after the server's Retry-After; other 5xx and 408 with backoff; other 4xx never.</summary>
    public static SyncAttempt Classify(HttpResponseMessage response)
    {
        var code = (int)response.StatusCode;
        var status = code.ToString(CultureInfo.InvariantCulture);
        if (response.IsSuccessStatusCode)
        {
            return SyncAttempt.Success(status);
        }

        if (response.StatusCode is HttpStatusCode.TooManyRequests or HttpStatusCode.ServiceUnavailable)
        {
            return SyncAttempt.Transient(status, RetryAfter(response));
        }

        return code >= 500 || response.StatusCode == HttpStatusCode.RequestTimeout
            ? SyncAttempt.Transient(status)
            : SyncAttempt.Permanent(status);
    }

    private static TimeSpan? RetryAfter(HttpResponseMessage response) => response.Headers.RetryAfter switch
    {
        { Delta: { } delta } => delta,
        { Date: { } date } => date - DateTimeOffset.UtcNow is var wait && wait > TimeSpan.Zero ? wait : TimeSpan.Zero,
        _ => null,
    };
}
