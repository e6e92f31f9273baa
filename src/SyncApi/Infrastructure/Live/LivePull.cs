using System.Diagnostics;
using System.Threading.RateLimiting;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Admission;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// Live pull, shared by REST (a pull with <c>wait</c>) and gRPC (<c>WatchChanges</c>): pull as
/// <see cref="DeviceSync"/> always does, and when the device is up to date, wait for a change of its user
/// to commit instead of answering an empty page. The device is registered in <see cref="ChangeWaiters"/>
/// before its first pull (so no commit slips between the pull and the wait), sleeps holding no database
/// connection and no admission slot, and pulls again when the change listener says a change numbered
/// past its last pull committed. Each pull takes an admission slot of the instance
/// (<see cref="InstanceAdmission"/>) and a fresh database budget, like a request of its own.
/// </summary>
public sealed class LivePull(
    DeviceSync sync,
    ChangeWaiters waiters,
    QuietWaits quiet,
    InstanceAdmission admission,
    IOptions<SyncOptions> syncOptions,
    IOptions<ResilienceOptions> resilience,
    TimeProvider clock,
    SyncMetrics? metrics = null)
{
    private readonly SyncOptions _options = syncOptions.Value;

    /// <summary>
    /// A pull that waits up to <paramref name="wait"/> for changes when there are none: the page of
    /// changes as soon as there are some, else, when the wait ends and a last check finds nothing, an
    /// empty page whose token is valid.
    /// A wait the instance cannot take is answered at once, with when to come back. The wait ends no later
    /// than <paramref name="tokenExpires"/>, and <paramref name="stillHolds"/> (the device's token neither
    /// expired nor revoked) is checked on every wake and at the end: when it fails, the wait ends with
    /// <see cref="DeviceTokenLapsedException"/>, so a revoked device hears of no change after its revocation.
    /// </summary>
    public async Task<LiveAnswer> PullAsync(
        DeviceCaller caller, UserNo user, string? since, int? pageSize, TimeSpan wait, DateTimeOffset tokenExpires, Func<bool> stillHolds,
        CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var untilExpiry = tokenExpires - clock.GetUtcNow();
        var expiresFirst = untilExpiry < wait; // then a wait that runs out has run into the token's expiry
        var ends = clock.GetTimestamp() + (long)(
            Math.Max(0, Math.Min(wait.TotalSeconds, untilExpiry.TotalSeconds)) * clock.TimestampFrequency);
        var admitted = Register(caller, user, Protocols.Rest, out var waiter);
        using (waiter)
        {
            // A device back with the token its last wait ended on, nothing having happened since, waits
            // again without a pull (QuietWaits); any other pulls first.
            SyncChangePage page;
            var resumed = waiter is not null && since is not null ? quiet.TryResume(caller, since) : null;
            var period = resumed?.Period ?? quiet.ListeningPeriod;
            var recordedAt = resumed?.RecordedAt ?? clock.GetUtcNow();
            if (resumed is not null)
            {
                page = new SyncChangePage([], resumed.Token, HasMore: false) { CaughtUpThrough = resumed.CaughtUpThrough };
                metrics?.RecordLiveResumed();
            }
            else
            {
                page = await PullAdmittedAsync(
                    caller, user, since, pageSize, Protocols.Rest, first: true, cancellationToken).ConfigureAwait(false);
            }

            if (waiter is null)
            {
                return new LiveAnswer(page, admitted == WaitAdmission.Stopping ? null : RefusedRetryAfter, null);
            }

            var slept = false;
            while (page.Changes.Count == 0 && !page.HasMore)
            {
                var remaining = clock.GetElapsedTime(clock.GetTimestamp(), ends);
                if (remaining <= TimeSpan.Zero)
                {
                    break;
                }

                var signal = await WaitAsync(
                    waiter.ArmAsync(page.CaughtUpThrough!.Value), remaining, cancellationToken).ConfigureAwait(false);
                if (signal is not { } woken)
                {
                    slept = true;
                    break;
                }

                if (woken.Stopping)
                {
                    return new LiveAnswer(page, null, null); // the instance stops: nothing new, the token stays valid
                }

                if (!stillHolds())
                {
                    throw new DeviceTokenLapsedException();
                }

                if (woken.Recheck)
                {
                    continue; // a revocation of another device of the user: wait on
                }

                period = quiet.ListeningPeriod;
                recordedAt = clock.GetUtcNow();
                page = await PullAdmittedAsync(
                    caller, user, page.SyncToken, pageSize, Protocols.Rest, first: false, cancellationToken).ConfigureAwait(false);
                if (page.Changes.Count > 0 || page.HasMore)
                {
                    return new LiveAnswer(page, null, woken);
                }
            }

            var nothingNew = page.Changes.Count == 0 && !page.HasMore;
            // A timer may fire a little before the expiry it was set for: a wait cut short by the token is over by definition.
            if ((nothingNew && expiresFirst) || !stillHolds())
            {
                throw new DeviceTokenLapsedException();
            }

            if (nothingNew && slept)
            {
                // A signal can be lost (ChangeSignals): a wait that ran out checks before it answers nothing,
                // one indexed read when nothing is new, so a lost signal costs the device at most its wait.
                period = quiet.ListeningPeriod;
                recordedAt = clock.GetUtcNow();
                page = await PullAdmittedAsync(
                    caller, user, page.SyncToken, pageSize, Protocols.Rest, first: false, cancellationToken).ConfigureAwait(false);
                nothingNew = page.Changes.Count == 0 && !page.HasMore;
            }

            if (nothingNew)
            {
                // The wait is over with nothing new: the token stays valid, and the device's next wait may start without a pull.
                quiet.Remember(caller, page.SyncToken, page.CaughtUpThrough!.Value, period, recordedAt, waiter);
            }

            return new LiveAnswer(page, null, null);
        }
    }

    /// <summary>
    /// The changes after <paramref name="since"/> as pages handed to <paramref name="send"/>: the backlog
    /// (at least one page, so the device learns its current token), then a page each time changes commit,
    /// and a heartbeat (no changes, the last token) after <c>Sync:WatchHeartbeatSeconds</c> with nothing
    /// sent, once a check has found nothing new. Returns after <c>Sync:WatchMaxSeconds</c>; cancelled with
    /// <paramref name="cancellationToken"/>. A watch the instance cannot take, or one the instance stops, ends with
    /// <see cref="WaitRefusedException"/> after the backlog.
    /// </summary>
    public async Task WatchAsync(
        DeviceCaller caller, UserNo user, string? since, int? pageSize, Func<LivePage, Task> send, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var heartbeat = TimeSpan.FromSeconds(_options.WatchHeartbeatSeconds);
        var ends = clock.GetTimestamp() + (long)(_options.WatchMaxSeconds * clock.TimestampFrequency);
        var admitted = Register(caller, user, Protocols.Grpc, out var waiter);
        using (waiter)
        {
            var token = since;
            var first = true;
            WakeSignal? woken = null;
            SyncChangePage? found = null; // changes a heartbeat's check found, sent as the next page
            var lastSent = clock.GetTimestamp();
            while (true)
            {
                SyncChangePage page;
                do
                {
                    page = found
                        ?? await PullAdmittedAsync(
                            caller, user, token, pageSize, Protocols.Grpc, first, cancellationToken).ConfigureAwait(false);
                    found = null;
                    if (first || page.Changes.Count > 0)
                    {
                        await send(new LivePage(page, Heartbeat: false)).ConfigureAwait(false);
                        lastSent = clock.GetTimestamp();
                        if (woken is { } signal && page.Changes.Count > 0)
                        {
                            RecordDelivery(Protocols.Grpc, signal);
                            woken = null;
                        }
                    }

                    token = page.SyncToken;
                    first = false;
                }
                while (page.HasMore);

                woken = null; // a wake whose pull found nothing (already delivered) is not a delivery
                if (waiter is null)
                {
                    throw new WaitRefusedException(admitted, admitted == WaitAdmission.Stopping ? TimeSpan.Zero : RefusedRetryAfter);
                }

                var wake = waiter.ArmAsync(page.CaughtUpThrough!.Value);
                while (woken is null && found is null)
                {
                    var now = clock.GetTimestamp();
                    if (now >= ends)
                    {
                        return;
                    }

                    var untilEnd = clock.GetElapsedTime(now, ends);
                    var untilBeat = heartbeat - clock.GetElapsedTime(lastSent, now);
                    var signal = await WaitAsync(
                        wake, untilBeat < untilEnd ? untilBeat : untilEnd, cancellationToken).ConfigureAwait(false);
                    if (signal is { Stopping: true })
                    {
                        throw new WaitRefusedException(WaitAdmission.Stopping, TimeSpan.Zero);
                    }

                    if (signal is { Recheck: true })
                    {
                        // A device of the user was revoked: a heartbeat now, which ends the watch if it was this one.
                        await send(new LivePage(new SyncChangePage([], token!, HasMore: false), Heartbeat: true)).ConfigureAwait(false);
                        lastSent = clock.GetTimestamp();
                        wake = waiter.ArmAsync(page.CaughtUpThrough!.Value);
                    }
                    else if (signal is { } change)
                    {
                        woken = change;
                    }
                    else if (clock.GetElapsedTime(lastSent) >= heartbeat && clock.GetTimestamp() < ends)
                    {
                        // A signal can be lost (ChangeSignals): each heartbeat checks first, one indexed read when
                        // nothing is new, so a lost signal costs the device at most one heartbeat's wait.
                        var check = await PullAdmittedAsync(
                            caller, user, token, pageSize, Protocols.Grpc, first: false, cancellationToken).ConfigureAwait(false);
                        if (check.Changes.Count > 0 || check.HasMore)
                        {
                            found = check;
                        }
                        else
                        {
                            await send(new LivePage(new SyncChangePage([], token!, HasMore: false), Heartbeat: true)).ConfigureAwait(false);
                            lastSent = clock.GetTimestamp();
                        }
                    }
                }
            }
        }
    }

    /// <summary>A woken device's answer is written (REST records it once the response has gone).</summary>
    public void RecordDelivery(string protocol, WakeSignal signal) =>
        metrics?.RecordLiveDelivery(
            protocol,
            Stopwatch.GetElapsedTime(signal.ReceivedAt),
            signal.StampedAt is { } stamped ? clock.GetUtcNow() - stamped : null);

    private TimeSpan RefusedRetryAfter => RetryAdvice.Spread(TimeSpan.FromSeconds(_options.WaitRefusedRetryAfterSeconds));

    private WaitAdmission Register(DeviceCaller caller, UserNo user, string protocol, out ChangeWaiter? waiter)
    {
        var admitted = waiters.TryAdd(user, caller.DeviceId, protocol, out waiter);
        if (admitted != WaitAdmission.Admitted)
        {
            metrics?.RecordLiveRefused(protocol, admitted switch
            {
                WaitAdmission.Stopping => LiveRefusal.Stopping,
                WaitAdmission.UserFull => LiveRefusal.UserFull,
                WaitAdmission.DeviceFull => LiveRefusal.DeviceFull,
                _ => _options.LivePull ? LiveRefusal.InstanceFull : LiveRefusal.Off,
            });
        }

        return admitted;
    }

    /// <summary>
    /// One pull as a request of its own: an admission slot, held only for the pull, and (after the first,
    /// which runs in the request's own) a database budget of <c>Resilience:RequestBudgetMs</c>.
    /// </summary>
    private async Task<SyncChangePage> PullAdmittedAsync(
        DeviceCaller caller, UserNo user, string? since, int? pageSize, string protocol, bool first, CancellationToken cancellationToken)
    {
        if (!first)
        {
            RequestBudget.Begin(clock.GetUtcNow() + TimeSpan.FromMilliseconds(resilience.Value.RequestBudgetMs));
        }

        RateLimitLease slot;
        try
        {
            slot = await admission.EnterAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (InstanceOverloadedException)
        {
            metrics?.RecordShedRequest(ShedReason.Overloaded, protocol);
            throw;
        }

        using (slot)
        {
            return await sync.PullAsync(caller, user, since, pageSize, cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>The wake, or null when <paramref name="timeout"/> passed first.</summary>
    private async Task<WakeSignal?> WaitAsync(Task<WakeSignal> wake, TimeSpan timeout, CancellationToken cancellationToken)
    {
        if (timeout <= TimeSpan.Zero)
        {
            return wake.IsCompleted ? await wake.ConfigureAwait(false) : null;
        }

        try
        {
            return await wake.WaitAsync(timeout, clock, cancellationToken).ConfigureAwait(false);
        }
        catch (TimeoutException)
        {
            return null;
        }
    }
}
