using System.Net;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;

/// <summary>Linking a Kobo e-reader, as a user's own device (bearer token) does it.</summary>
public static class KoboLinks
{
    public static async Task<HttpResponseMessage> RequestLinkAsync(this HttpClient device, long user) =>
        await device.PostAsync(new Uri($"/v1/users/{user}/kobo-links", UriKind.Relative), null, TestTimeout.Token);

    /// <summary>The <c>apiEndpoint</c> of a new link; the request must answer 201.</summary>
    public static async Task<string> LinkAsync(this HttpClient device, long user)
    {
        using var response = await device.RequestLinkAsync(user);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.StatusCode == HttpStatusCode.Created, $"kobo-links: {(int)response.StatusCode} {body}");
        return JsonDocument.Parse(body).RootElement.GetProperty("apiEndpoint").GetString()!;
    }

    /// <summary>The secret of an <c>apiEndpoint</c> (its last path segment).</summary>
    public static string SecretOf(string apiEndpoint) => apiEndpoint[(apiEndpoint.LastIndexOf('/') + 1)..];

    /// <summary>The device's root as a path on the test server: <c>/kobo/{secret}</c>.</summary>
    public static string RootOf(string apiEndpoint) => "/kobo/" + SecretOf(apiEndpoint);
}
