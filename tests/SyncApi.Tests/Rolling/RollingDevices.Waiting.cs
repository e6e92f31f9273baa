using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Rolling;

/// <summary>The waiting devices: one per user, pulling with <c>wait</c> again at once after each answer.</summary>
public sealed partial class RollingDevices
{
    /// <summary>Starts one waiting device per user and returns once each holds a sync token.</summary>
    public async Task StartWaitersAsync()
    {
        for (var user = 1; user <= _users; user++)
        {
            var u = user;
            _waiters.Add(Task.Run(() => WaitLoopAsync(u)));
        }

        var clock = Stopwatch.StartNew();
        while (_waiterTokens.Any(token => token is null))
        {
            Assert.True(clock.Elapsed < TimeSpan.FromSeconds(120), string.Create(CultureInfo.InvariantCulture,
                $"{_waiterTokens.Count(token => token is null)} of {_users} waiting devices did not get their first sync token within 120 s; " +
                $"{_reconnects} reconnects, after: {string.Join("; ", _reconnectReasons.Distinct().Take(5))}"));
            await Task.Delay(50);
        }
    }

    /// <summary>Acknowledged highlights the waiting device of their user has not received (yet).</summary>
    public IReadOnlyList<string> NotYetReceived() =>
        [.. _acknowledged.Where(ack => !_seen[ack.Value.User - 1].TryGetValue(ack.Key, out var version) || version < ack.Value.Version).Select(ack => ack.Key)];

    private async Task WaitLoopAsync(int user)
    {
        var token = TestTokens.For(user, $"rolling-waiter-{user}");
        var failures = 0;
        while (!_stopWaiters.IsCancellationRequested)
        {
            var since = _waiterTokens[user - 1];
            // The first pull takes the device's token at once, as a device's first sync does; later ones wait.
            var query = since is null ? "?pageSize=500" : $"?wait={WaitSeconds}&pageSize=500&since=" + Uri.EscapeDataString(since);
            TimeSpan? pause = null;
            try
            {
                var clock = Stopwatch.StartNew();
                using var message = Request(HttpMethod.Get, $"/v1/users/{user}/changes{query}", token, null);
                using var response = await _waitHttp.SendAsync(message, _stopWaiters.Token);
                if (response.StatusCode == HttpStatusCode.OK)
                {
                    using var page = JsonDocument.Parse(await response.Content.ReadAsStringAsync(_stopWaiters.Token));
                    var changes = page.RootElement.GetProperty("changes");
                    foreach (var change in changes.EnumerateArray().Where(change => change.GetProperty("kind").GetString() == "highlight"))
                    {
                        var version = long.Parse(change.GetProperty("version").GetString()!, CultureInfo.InvariantCulture);
                        _seen[user - 1].AddOrUpdate(change.GetProperty("id").GetString()!, version, (_, had) => Math.Max(had, version));
                    }

                    if (since is not null && changes.GetArrayLength() == 0 && clock.Elapsed < TimeSpan.FromSeconds(WaitSeconds - 2))
                    {
                        Interlocked.Increment(ref _answeredEarly);
                    }

                    _waiterTokens[user - 1] = page.RootElement.GetProperty("syncToken").GetString();
                    pause = response.Headers.RetryAfter?.Delta; // a refused wait: pull again after it
                    failures = 0;
                }
                else
                {
                    Interlocked.Increment(ref _reconnects);
                    _reconnectReasons.Enqueue($"{(int)response.StatusCode} {await response.Content.ReadAsStringAsync(_stopWaiters.Token)}");
                    pause = response.Headers.RetryAfter?.Delta ?? Backoff(++failures);
                }
            }
            catch (OperationCanceledException) when (_stopWaiters.IsCancellationRequested)
            {
                return;
            }
            catch (Exception error) when (error is HttpRequestException or TaskCanceledException)
            {
                Interlocked.Increment(ref _reconnects);
                _reconnectReasons.Enqueue(error.Message);
                pause = Backoff(++failures);
            }

            if (pause is { } delay)
            {
                try
                {
                    await Task.Delay(delay, _stopWaiters.Token);
                }
                catch (OperationCanceledException)
                {
                    return;
                }
            }
        }
    }
}
