using System.Collections.Concurrent;
using System.Diagnostics;
using System.Globalization;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Rolling;

/// <summary>
/// Devices calling the service through the balancer while it is upgraded: syncing devices (each sync
/// a pull of every page after the device's token and a push of new highlights, two by default) and waiting
/// devices (one per user, REST live pull with <c>wait</c>, pulling again at once after each answer).
/// A syncing device retries like a real one, unless told not to: <c>Retry-After</c> on 503 / 429
/// honoured, otherwise exponential backoff with full jitter (0.1 s doubling up to 2 s), at most
/// <see cref="MaxTries"/> tries per call; a sync whose call runs out of tries, or is answered anything
/// but success, fails. A waiting device reconnects as long as it runs.
/// </summary>
public sealed partial class RollingDevices : IAsyncDisposable
{
    public const int MaxTries = 8;
    private const int WaitSeconds = 20;

    private readonly int _users;
    private readonly bool _retries;
    private readonly int _changesPerPush;
    private readonly HttpClient _http;
    private readonly HttpClient _waitHttp;
    private readonly CancellationTokenSource _stopSyncs = new();
    private readonly CancellationTokenSource _stopWaiters = new();
    private readonly List<Task> _syncDevices = [];
    private readonly List<Task> _waiters = [];
    private readonly ConcurrentQueue<double> _syncMilliseconds = new();
    private readonly ConcurrentQueue<string> _failures = new();
    private readonly ConcurrentQueue<string> _reconnectReasons = new();
    private readonly ConcurrentQueue<string> _retryReasons = new();
    private readonly ConcurrentDictionary<string, (long User, long Version)> _acknowledged = new();
    private readonly ConcurrentDictionary<string, long>[] _seen;
    private readonly string?[] _waiterTokens;
    private int _syncs;
    private int _failedSyncs;
    private int _retried;
    private int _reconnects;
    private int _answeredEarly;

    public RollingDevices(Uri front, int users, bool retries = true, int changesPerPush = 2)
    {
        (_users, _retries, _changesPerPush) = (users, retries, changesPerPush);
        _http = new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = 64 }) { BaseAddress = front, Timeout = TimeSpan.FromSeconds(30) };
        _waitHttp = new HttpClient(new SocketsHttpHandler()) { BaseAddress = front, Timeout = TimeSpan.FromSeconds(WaitSeconds + 40) };
        _seen = [.. Enumerable.Range(0, users).Select(_ => new ConcurrentDictionary<string, long>())];
        _waiterTokens = new string?[users];
    }

    public int Syncs => _syncs;

    public int FailedSyncs => _failedSyncs;

    /// <summary>Calls sent again by syncing devices (after a 503/429, an error status, or no answer).</summary>
    public int Retries => _retried;

    /// <summary>Waiting devices' pulls that failed and were made again (no answer, or an error status).</summary>
    public int Reconnects => _reconnects;

    /// <summary>Held pulls answered empty well before their wait: the stopping instance's answer.</summary>
    public int AnsweredEarly => _answeredEarly;

    public IReadOnlyCollection<string> Failures => _failures;

    /// <summary>Why syncing devices sent a call again.</summary>
    public IReadOnlyCollection<string> RetryReasons => _retryReasons;

    /// <summary>Why waiting devices reconnected.</summary>
    public IReadOnlyCollection<string> ReconnectReasons => _reconnectReasons;

    /// <summary>Every highlight a push acknowledged (applied or unchanged): its user and version.</summary>
    public IReadOnlyDictionary<string, (long User, long Version)> Acknowledged => _acknowledged;

    public double SyncPercentile(double p)
    {
        var sorted = _syncMilliseconds.Order().ToArray();
        return sorted.Length == 0 ? 0 : sorted[Math.Min(sorted.Length - 1, (int)Math.Ceiling(p * sorted.Length) - 1)];
    }

    /// <summary>Starts <paramref name="devices"/> syncing devices, each pausing 100-300 ms between syncs.</summary>
    public void StartSyncs(int devices)
    {
        for (var device = 0; device < devices; device++)
        {
            var d = device;
            _syncDevices.Add(Task.Run(() => SyncLoopAsync(d)));
        }
    }

    public async Task StopSyncsAsync()
    {
        await _stopSyncs.CancelAsync();
        await Task.WhenAll(_syncDevices);
    }

    public async ValueTask DisposeAsync()
    {
        await _stopSyncs.CancelAsync();
        await _stopWaiters.CancelAsync();
        await Task.WhenAll(_syncDevices.Concat(_waiters));
        _http.Dispose();
        _waitHttp.Dispose();
    }

    private async Task SyncLoopAsync(int device)
    {
        var user = 1 + (device % _users);
        var token = TestTokens.For(user, $"rolling-sync-{device}");
        string? since = null;
        var sequence = 0;
        while (!_stopSyncs.IsCancellationRequested)
        {
            var clock = Stopwatch.StartNew();
            var (ok, next) = await SyncAsync(user, token, since, device, sequence++);
            if (ok)
            {
                since = next;
                _syncMilliseconds.Enqueue(clock.Elapsed.TotalMilliseconds);
                Interlocked.Increment(ref _syncs);
            }
            else
            {
                Interlocked.Increment(ref _failedSyncs);
            }

            try
            {
                await Task.Delay(Random.Shared.Next(100, 300), _stopSyncs.Token);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    private async Task<(bool Ok, string? Since)> SyncAsync(long user, string token, string? since, int device, int sequence)
    {
        var more = true;
        while (more)
        {
            var query = "?pageSize=500" + (since is null ? string.Empty : "&since=" + Uri.EscapeDataString(since));
            using var pulled = await CallAsync(() => Request(HttpMethod.Get, $"/v1/users/{user}/changes{query}", token, null), $"pull of user {user}");
            if (pulled is null)
            {
                return (false, since);
            }

            using var page = JsonDocument.Parse(await pulled.Content.ReadAsStringAsync());
            since = page.RootElement.GetProperty("syncToken").GetString();
            more = page.RootElement.GetProperty("hasMore").GetBoolean();
        }

        var now = DateTimeOffset.UtcNow.ToString("O", CultureInfo.InvariantCulture);
        var changes = string.Join(',', Enumerable.Range(0, _changesPerPush).Select(part =>
            $$"""{"op":"upsert","bookNo":"{{1 + ((device + sequence) % 20)}}","key":"d{{device}}-s{{sequence}}-{{part}}","text":"rolling {{device}} {{sequence}}","start":{{sequence}},"length":5,"color":"yellow","modifiedAt":"{{now}}"}"""));
        using var pushed = await CallAsync(() => Request(HttpMethod.Post, $"/v1/users/{user}/changes", token, $$"""{"changes":[{{changes}}]}"""), $"push of user {user}");
        if (pushed is null)
        {
            return (false, since);
        }

        using var results = JsonDocument.Parse(await pushed.Content.ReadAsStringAsync());
        foreach (var result in results.RootElement.GetProperty("results").EnumerateArray())
        {
            var status = result.GetProperty("status").GetString();
            if (status is not ("applied" or "unchanged"))
            {
                _failures.Enqueue($"push of user {user}: {result}");
                return (false, since);
            }

            _acknowledged[result.GetProperty("id").GetString()!] = (user, long.Parse(result.GetProperty("version").GetString()!, CultureInfo.InvariantCulture));
        }

        return (true, since);
    }

    /// <summary>One call with the device's retries; null when it failed for good.</summary>
    private async Task<HttpResponseMessage?> CallAsync(Func<HttpRequestMessage> request, string what)
    {
        for (var attempt = 1; ; attempt++)
        {
            TimeSpan? wait = null;
            string failure;
            try
            {
                using var message = request();
                var response = await _http.SendAsync(message);
                if (response.IsSuccessStatusCode)
                {
                    return response;
                }

                var status = (int)response.StatusCode;
                wait = response.Headers.RetryAfter?.Delta;
                failure = $"{what}: {status} {await response.Content.ReadAsStringAsync()}";
                response.Dispose();
                if (status is not (429 or 502 or 503 or 504))
                {
                    _failures.Enqueue(failure);
                    return null;
                }
            }
            catch (HttpRequestException error)
            {
                failure = $"{what}: {error.Message}";
            }
            catch (TaskCanceledException)
            {
                failure = $"{what}: no answer within {_http.Timeout.TotalSeconds} s";
            }

            if (!_retries || attempt == MaxTries)
            {
                _failures.Enqueue(failure + (_retries ? $" (after {MaxTries} tries)" : " (no retries)"));
                return null;
            }

            Interlocked.Increment(ref _retried);
            _retryReasons.Enqueue($"{what.Split(' ')[0]}: {failure[(what.Length + 2)..].Split('\n')[0]}");
            await Task.Delay(wait ?? Backoff(attempt));
        }
    }

    private static HttpRequestMessage Request(HttpMethod method, string path, string token, string? json)
    {
        var message = new HttpRequestMessage(method, new Uri(path, UriKind.Relative));
        message.Headers.Authorization = new AuthenticationHeaderValue("Bearer", token);
        if (json is not null)
        {
            message.Content = new StringContent(json, Encoding.UTF8, "application/json");
        }

        return message;
    }

    /// <summary>Full jitter: a random wait up to 0.1 s doubled per try, at most 2 s.</summary>
    private static TimeSpan Backoff(int attempt) =>
        TimeSpan.FromMilliseconds(Random.Shared.NextDouble() * Math.Min(2000, 100 * Math.Pow(2, Math.Min(attempt, 10))));
}
