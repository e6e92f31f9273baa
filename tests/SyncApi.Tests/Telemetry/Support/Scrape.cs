using System.Net;
using System.Net.Http.Headers;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Support;

/// <summary>
/// Reads <c>/metrics</c> in the Prometheus text format 0.0.4, asked for by its media type: the exporter
/// answers OpenMetrics to a scraper that prefers it, and <c>promtool check metrics</c> reads only text.
/// </summary>
public static class Scrape
{
    public const string Path = "/metrics";

    public static HttpRequestMessage TextRequest()
    {
        var request = new HttpRequestMessage(HttpMethod.Get, new Uri(Path, UriKind.Relative));
        request.Headers.Accept.Add(new MediaTypeWithQualityHeaderValue("text/plain"));
        return request;
    }

    public static async Task<string> TextAsync(HttpClient client)
    {
        using var request = TextRequest();
        using var response = await client.SendAsync(request, TestTimeout.Token);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        return await response.Content.ReadAsStringAsync(TestTimeout.Token);
    }
}
