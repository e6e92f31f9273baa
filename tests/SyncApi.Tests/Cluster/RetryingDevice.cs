using System.Diagnostics;
using System.Net.Http.Headers;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DevicePushes;

namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// An e-reader's sync as devices in the field run it: pull the changes after the sync token it kept,
/// then push one new highlight. Each call is retried as the simulator's devices retry
/// (<c>DeviceRetryPipeline</c>): after the service's <c>Retry-After</c> on 503 and 429, otherwise
/// (no answer, a connection refused, a 5xx without advice) after an exponential backoff with jitter
/// from 500 ms up to 8 s, at most <paramref name="maxRetries"/> times per call; a call is abandoned
/// after 10 s. A sync fails when a call fails after its retries, or is refused outright (4xx).
/// </summary>
internal sealed class RetryingDevice(Uri service, long user, string name, int maxRetries, int seed)
{
    private static readonly TimeSpan BaseDelay = TimeSpan.FromMilliseconds(500);
    private static readonly TimeSpan MaxDelay = TimeSpan.FromSeconds(8);
    private static readonly TimeSpan CallTimeout = TimeSpan.FromSeconds(10);

    private readonly Random _jitter = new(seed);
    private string? _syncToken;

    public long User { get; } = user;

    public string Name { get; } = name;

    /// <summary>The retries of all its calls so far.</summary>
    public int Retries { get; private set; }

    /// <summary>Syncs again and again, <paramref name="pause"/> apart (with jitter), until <paramref name="stop"/>.</summary>
    public async Task<List<Sync>> SyncSteadilyAsync(Stopwatch clock, TimeSpan pause, CancellationToken stop)
    {
        using var http = new HttpClient { BaseAddress = service, Timeout = CallTimeout };
        http.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(User, Name));
        var log = new List<Sync>();
        for (var i = 1; !stop.IsCancellationRequested; i++)
        {
            log.Add(await SyncAsync(http, $"{Name}-{i}", clock));
            await Task.Delay(pause * (0.5 + _jitter.NextDouble()), CancellationToken.None);
        }

        return log;
    }

    private async Task<Sync> SyncAsync(HttpClient http, string key, Stopwatch clock)
    {
        var start = clock.Elapsed;
        var pull = await WithRetriesAsync(() => PullAsync(http));
        if (!pull.Ok)
        {
            return new Sync(User, key, start, clock.Elapsed, Acknowledged: false, $"pull: {pull.Status}");
        }

        var push = await WithRetriesAsync(() => PushAsync(http, key));
        return new Sync(User, key, start, clock.Elapsed, push.Ok, push.Ok ? null : $"push: {push.Status}");
    }

    private async Task<Attempt> WithRetriesAsync(Func<Task<Attempt>> call)
    {
        for (var retry = 0; ; retry++)
        {
            var attempt = await call();
            if (attempt.Ok || !Retryable(attempt.Status) || retry == maxRetries)
            {
                return attempt;
            }

            Retries++;
            await Task.Delay(attempt.RetryAfter ?? Backoff(retry), CancellationToken.None);
        }
    }

    private static bool Retryable(int status) => status is 0 or 429 or >= 500;

    /// <summary>Exponential from 500 ms, capped at 8 s, each delay drawn between half and all of it.</summary>
    private TimeSpan Backoff(int retry)
    {
        var ceiling = Math.Min(MaxDelay.TotalMilliseconds, BaseDelay.TotalMilliseconds * Math.Pow(2, retry));
        return TimeSpan.FromMilliseconds(ceiling * (0.5 + (_jitter.NextDouble() / 2)));
    }

    private async Task<Attempt> PullAsync(HttpClient http)
    {
        var query = "?pageSize=100" + (_syncToken is null ? string.Empty : "&since=" + Uri.EscapeDataString(_syncToken));
        try
        {
            using var response = await http.GetAsync(new Uri($"/v1/users/{User}/changes{query}", UriKind.Relative));
            if (!response.IsSuccessStatusCode)
            {
                return new Attempt(false, (int)response.StatusCode, response.Headers.RetryAfter?.Delta);
            }

            using var page = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
            _syncToken = page.RootElement.GetProperty("syncToken").GetString();
            return new Attempt(true, 200, null);
        }
        catch (Exception e) when (e is HttpRequestException or TaskCanceledException)
        {
            return new Attempt(false, 0, null);
        }
    }

    private async Task<Attempt> PushAsync(HttpClient http, string key)
    {
        try
        {
            var push = await PushHighlightAsync(http, User, key, Name);
            return new Attempt(push.Acknowledged, push.Status, push.RetryAfter);
        }
        catch (TaskCanceledException)
        {
            return new Attempt(false, 0, null);
        }
    }

    private readonly record struct Attempt(bool Ok, int Status, TimeSpan? RetryAfter);

    /// <summary>One sync: its user, the key of the highlight it pushed, when it started and ended, and why it failed.</summary>
    public readonly record struct Sync(long User, string Key, TimeSpan Start, TimeSpan End, bool Acknowledged, string? Failure);
}
