using System.Diagnostics;
using System.Net;
using System.Net.Http.Headers;
using System.Text.Json;
using Kobo.Sync.DeviceSimulator.Devices;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Live;

/// <summary>
/// A device waiting over REST: it catches up with plain pulls (<c>GET /v1/users/{n}/changes</c> from no
/// token until <c>hasMore</c> is false, paced like a syncing device: <c>burst</c> at once, then
/// <c>requestsPerSecond</c>), then long-polls with <c>wait</c> from its last token, again
/// and again: an answer with changes is held (recorded in the ledger) the moment its body is read, and
/// the device asks again at once. A wait the service would not take (an answer with <c>Retry-After</c>,
/// 429, 503) is retried after the time given; any other failure after a backoff. Each request's
/// timeout is its wait plus the device's <c>timeoutMs</c>. Needs a connection of its own while it
/// waits, so its client has no cap on connections.
/// </summary>
public sealed class RestWaiter(HttpClient http, DeviceTokens tokens) : IWaiterTransport
{
    public async Task RunAsync(WaitingDevice device, WaiterContext context, CancellationToken stop)
    {
        try
        {
            var token = await CatchUpAsync(device, context, stop);
            context.CaughtUp();
            var failures = 0;
            while (true)
            {
                context.Counters.Request();
                var answer = await PullAsync(device, token, context.WaitSeconds, context, stop);
                if (answer.Token is { } next)
                {
                    token = next;
                    failures = 0;
                    if (answer.RetryAfter is not { } refused)
                    {
                        continue;
                    }

                    context.Counters.Refused();
                    await Task.Delay(refused, stop);
                    continue;
                }

                if (answer.Refused)
                {
                    context.Counters.Refused();
                }
                else
                {
                    context.Counters.Error();
                }

                await Task.Delay(context.Backoff(failures++, answer.RetryAfter), stop);
            }
        }
        catch (OperationCanceledException) when (stop.IsCancellationRequested)
        {
        }
    }

    /// <summary>Plain pulls from no token until the last page, a bounded number of devices at once: the token to wait from.</summary>
    private async Task<string> CatchUpAsync(WaitingDevice device, WaiterContext context, CancellationToken stop)
    {
        await context.CatchingUp.WaitAsync(stop);
        try
        {
            string? token = null;
            var failures = 0;
            for (var request = 0; ; request++)
            {
                if (request >= context.Behaviour.Burst)
                {
                    // Paced as a syncing device is: a burst, then its steady rate, under the service's per-device limit.
                    await Task.Delay(TimeSpan.FromSeconds(1.0 / context.Behaviour.RequestsPerSecond), stop);
                }

                var answer = await PullAsync(device, token, wait: 0, context, stop);
                if (answer.Token is { } next)
                {
                    token = next;
                    failures = 0;
                    if (!answer.HasMore)
                    {
                        return token;
                    }
                }
                else
                {
                    await Task.Delay(context.Backoff(failures++, answer.RetryAfter), stop);
                }
            }
        }
        finally
        {
            context.CatchingUp.Release();
        }
    }

    private async Task<Answer> PullAsync(WaitingDevice device, string? since, int wait, WaiterContext context, CancellationToken stop)
    {
        var path = FormattableString.Invariant($"/v1/users/{device.UserNo}/changes?pageSize={context.PageSize}")
            + (since is null ? string.Empty : "&since=" + Uri.EscapeDataString(since))
            + (wait > 0 ? FormattableString.Invariant($"&wait={wait}") : string.Empty);
        using var request = new HttpRequestMessage(HttpMethod.Get, path);
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", tokens.For(device.UserNo, device.Device));
        using var timeout = CancellationTokenSource.CreateLinkedTokenSource(stop);
        timeout.CancelAfter(TimeSpan.FromSeconds(wait) + TimeSpan.FromMilliseconds(context.Behaviour.TimeoutMs));
        try
        {
            using var response = await http.SendAsync(request, HttpCompletionOption.ResponseContentRead, timeout.Token);
            var retryAfter = RetryAfter(response);
            if (!response.IsSuccessStatusCode)
            {
                return new Answer(
                    null, false, retryAfter, response.StatusCode is HttpStatusCode.TooManyRequests or HttpStatusCode.ServiceUnavailable);
            }

            await using var body = await response.Content.ReadAsStreamAsync(timeout.Token);
            using var page = await JsonDocument.ParseAsync(body, cancellationToken: timeout.Token);
            var held = Stopwatch.GetTimestamp();
            var root = page.RootElement;
            var changes = root.GetProperty("changes");
            foreach (var change in changes.EnumerateArray())
            {
                if (change.TryGetProperty("id", out var id) && id.GetString() is { } changeId)
                {
                    context.Ledger.Receive(device.Group, device.Index, changeId, held);
                }
            }

            if (wait > 0 && changes.GetArrayLength() > 0)
            {
                context.Counters.AnswerWithChanges();
            }

            return new Answer(root.GetProperty("syncToken").GetString(), root.GetProperty("hasMore").GetBoolean(), retryAfter, false);
        }
        catch (OperationCanceledException) when (!stop.IsCancellationRequested)
        {
            return new Answer(null, false, null, false); // the request's own timeout
        }
        catch (Exception exception)
            when (exception is HttpRequestException or IOException or JsonException or KeyNotFoundException or InvalidOperationException)
        {
            return new Answer(null, false, null, false);
        }
    }

    private static TimeSpan? RetryAfter(HttpResponseMessage response) => response.Headers.RetryAfter switch
    {
        { Delta: { } delta } => delta,
        { Date: { } date } => date - DateTimeOffset.UtcNow is var wait && wait > TimeSpan.Zero ? wait : TimeSpan.Zero,
        _ => null,
    };

    /// <summary>A pull's answer: the token to continue from (null when it failed), and when to come back if the service said.</summary>
    private readonly record struct Answer(string? Token, bool HasMore, TimeSpan? RetryAfter, bool Refused);
}
