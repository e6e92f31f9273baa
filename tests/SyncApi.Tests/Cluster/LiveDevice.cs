using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>A device that waits for changes (REST, <c>wait=20</c>) again and again, keeping the ids it was sent.</summary>
internal sealed class LiveDevice(string name)
{
    public string Name { get; } = name;

    private readonly HashSet<string> _received = [];

    public int Answers { get; private set; }

    public int Refusals { get; private set; }

    /// <summary>How many of <paramref name="ids"/> it has not been sent.</summary>
    public int Missing(IReadOnlyCollection<string> ids)
    {
        lock (_received)
        {
            return ids.Count(id => !_received.Contains(id));
        }
    }

    public async Task WaitSteadilyAsync(Uri service, long user, CancellationToken stop)
    {
        using var http = new HttpClient { BaseAddress = service, Timeout = TimeSpan.FromSeconds(40) };
        http.DefaultRequestHeaders.Authorization = new System.Net.Http.Headers.AuthenticationHeaderValue("Bearer", TestTokens.For(user, Name));
        string? token = null;
        while (!stop.IsCancellationRequested)
        {
            try
            {
                var query = "?wait=20" + (token is null ? string.Empty : "&since=" + Uri.EscapeDataString(token));
                using var response = await http.GetAsync(new Uri($"/v1/users/{user}/changes{query}", UriKind.Relative), stop);
                if (!response.IsSuccessStatusCode)
                {
                    // 503 while the cluster has no primary: come back when told, with the same token.
                    Refusals++;
                    await Task.Delay(response.Headers.RetryAfter?.Delta ?? TimeSpan.FromMilliseconds(500), stop);
                    continue;
                }

                using var page = System.Text.Json.JsonDocument.Parse(await response.Content.ReadAsStringAsync(stop));
                lock (_received)
                {
                    foreach (var change in page.RootElement.GetProperty("changes").EnumerateArray())
                    {
                        if (change.TryGetProperty("id", out var id))
                        {
                            _received.Add(id.GetString()!);
                        }
                    }
                }

                token = page.RootElement.GetProperty("syncToken").GetString();
                Answers++;
            }
            catch (Exception) when (stop.IsCancellationRequested)
            {
                return;
            }
            catch (HttpRequestException)
            {
                Refusals++;
                await Task.Delay(500, CancellationToken.None);
            }
        }
    }
}
