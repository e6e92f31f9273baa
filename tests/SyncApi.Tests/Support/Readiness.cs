using System.Net;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>Waits for a service's readiness probe, which says OK once its database is reachable and migrated.</summary>
public static class Readiness
{
    /// <summary>True once <c>/healthz/ready</c> answers 200, false if it has not within <paramref name="within"/>.</summary>
    public static async Task<bool> BecomesReadyAsync(HttpClient http, TimeSpan within)
    {
        var until = DateTime.UtcNow + within;
        while (DateTime.UtcNow < until)
        {
            using var response = await http.GetAsync("/healthz/ready");
            if (response.StatusCode == HttpStatusCode.OK)
            {
                return true;
            }

            await Task.Delay(100);
        }

        return false;
    }
}
