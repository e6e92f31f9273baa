using System.Diagnostics;
using System.Diagnostics.Metrics;
using Kobo.Sync.Storage.Telemetry;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// The <c>Kobo.Sync</c> meter: every instrument the web host records itself (storage's are <see cref="StorageMetrics"/>), with the small
/// methods that record them. Names follow OpenTelemetry's conventions; the Prometheus names they become at
/// <c>/metrics</c> are listed in docs/operations.md. Tag values are the constants of
/// <see cref="TelemetryTags"/> or come from small fixed sets, so series stay bounded and the hot path
/// records without allocating (<see cref="TagList"/> holds up to eight tags on the stack).
/// </summary>
public sealed class SyncMetrics : IDisposable
{
    public const string MeterName = "Kobo.Sync";

    /// <summary>
    /// Request latency buckets in seconds: fine (10 ms) from 100 to 250 ms so p99 and p99.9 read
    /// close to the 200 ms SLA, coarse below and above.
    /// </summary>
    public static readonly IReadOnlyList<double> LatencyBucketsSeconds =
    [
        0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.04, 0.05, 0.075,
        0.1, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18, 0.19, 0.2, 0.21, 0.22, 0.23, 0.24, 0.25,
        0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 10,
    ];

    /// <summary>Items per page: the page size runs 1..100 (default 10); sync pulls may be longer.</summary>
    public static readonly IReadOnlyList<long> CountBuckets = [0, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000];

    private readonly Meter _meter;
    private readonly Counter<long> _requests;
    private readonly Histogram<double> _requestDuration;
    private readonly Histogram<long> _highlightsPerPage;
    private readonly Histogram<long> _pullPagesPerSync;
    private readonly Counter<long> _pushChanges;
    private readonly Counter<long> _shedRequests;
    private readonly Counter<long> _resilienceEvents;
    private readonly UpDownCounter<long> _buffered;
    private readonly UpDownCounter<long> _liveWaiters;
    private readonly Counter<long> _liveRefused;
    private readonly Histogram<double> _liveWakeDuration;
    private readonly Histogram<double> _liveDeliveryDuration;
    private readonly Histogram<double> _liveNotificationLag;
    private readonly Counter<long> _liveListenerReconnects;
    private readonly Counter<long> _liveResumed;
    private readonly Counter<long> _liveSignals;

    public SyncMetrics(IMeterFactory meterFactory)
    {
        _meter = meterFactory.Create(MeterName);

        _requests = _meter.CreateCounter<long>(
            "kobo.sync.requests", "{request}",
            "Device requests answered, by endpoint, protocol (rest, grpc) and outcome (ok or the kind of error).");
        _requestDuration = _meter.CreateHistogram(
            "kobo.sync.request.duration", "s",
            "Time from the first byte of a device request to its last, by endpoint and protocol.",
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = LatencyBucketsSeconds });
        _highlightsPerPage = _meter.CreateHistogram(
            "kobo.sync.highlights.per_page", "{highlight}",
            "Highlights returned in one page of a highlights read, by endpoint and protocol.",
            advice: new InstrumentAdvice<long> { HistogramBucketBoundaries = CountBuckets });
        _pullPagesPerSync = _meter.CreateHistogram(
            "kobo.sync.pull.pages", "{page}",
            "Pages a device pulled in one sync (first pull to last page), by protocol.",
            advice: new InstrumentAdvice<long> { HistogramBucketBoundaries = CountBuckets });
        _pushChanges = _meter.CreateCounter<long>(
            "kobo.sync.push.changes", "{change}",
            "Changes pushed by devices, by status: applied, unchanged, conflict, rejected.");
        _shedRequests = _meter.CreateCounter<long>(
            "kobo.sync.requests.shed", "{request}",
            "Requests refused to protect the service (429 or 503, RESOURCE_EXHAUSTED or UNAVAILABLE), by reason and protocol.");
        _resilienceEvents = _meter.CreateCounter<long>(
            "kobo.sync.resilience.events", "{event}",
            "Resilience pipeline events (retry, circuit opened, half-opened, closed, timeout), by pipeline and event.");
        _buffered = _meter.CreateUpDownCounter<long>(
            "kobo.sync.buffered", "By",
            "Bytes this instance holds while it waits on devices' networks, by direction: " +
            "request bodies arriving (and held until their request ends), answers waiting to be taken.");
        _liveWaiters = _meter.CreateUpDownCounter<long>(
            "kobo.sync.live.waiters", "{device}",
            "Devices waiting for changes on this instance (REST wait, gRPC WatchChanges), by protocol.");
        _liveRefused = _meter.CreateCounter<long>(
            "kobo.sync.live.refused", "{request}",
            "Waits for changes answered at once instead, by protocol and reason (instance_full, user_full, device_full, off, stopping).");
        _liveWakeDuration = _meter.CreateHistogram(
            "kobo.sync.live.wake.duration", "s",
            "From the change notification's arrival at this instance to the waiting device's answer written, by protocol.",
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = LatencyBucketsSeconds });
        _liveDeliveryDuration = _meter.CreateHistogram(
            "kobo.sync.live.delivery.duration", "s",
            "From the push's commit (the clock of the instance that took it) to the waiting device's answer written, by protocol.",
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = LatencyBucketsSeconds });
        _liveNotificationLag = _meter.CreateHistogram(
            "kobo.sync.live.notification.lag", "s",
            "From the push's commit (the clock of the instance that took it) to its notification's arrival at this instance's listener.",
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = StorageMetrics.DatabaseBucketsSeconds });
        _liveListenerReconnects = _meter.CreateCounter<long>(
            "kobo.sync.live.listener.reconnects", "{reconnect}",
            "Times the change listener lost its database connection and listened again (waiting devices then re-check).");
        _liveResumed = _meter.CreateCounter<long>(
            "kobo.sync.live.resumed", "{request}",
            "REST waits that started without a pull: the device came back with the token its last wait ended on, and nothing had changed.");
        _liveSignals = _meter.CreateCounter<long>(
            "kobo.sync.live.signals", "{user}",
            "Users' committed changes this instance told the other instances of, by outcome (sent, failed: held to be sent again, " +
            "dropped).");
    }

    /// <summary>One device request: counted by outcome, its duration (unless null: a live pull) recorded for its endpoint.</summary>
    public void RecordRequest(string endpoint, string protocol, string outcome, TimeSpan? elapsed)
    {
        var counted = new TagList
        {
            { TelemetryTags.Endpoint, endpoint },
            { TelemetryTags.Protocol, protocol },
            { TelemetryTags.Outcome, outcome },
        };
        _requests.Add(1, in counted);
        if (elapsed is null)
        {
            return;
        }

        var timed = new TagList { { TelemetryTags.Endpoint, endpoint }, { TelemetryTags.Protocol, protocol } };
        _requestDuration.Record(elapsed.Value.TotalSeconds, in timed);
    }

    /// <summary>One page of highlights returned to a device.</summary>
    public void RecordHighlightsPage(string endpoint, string protocol, int highlights)
    {
        var tags = new TagList { { TelemetryTags.Endpoint, endpoint }, { TelemetryTags.Protocol, protocol } };
        _highlightsPerPage.Record(highlights, in tags);
    }

    /// <summary>A device finished pulling: how many pages the whole sync took.</summary>
    public void RecordPullPagesPerSync(string protocol, int pages)
    {
        var tags = new TagList { { TelemetryTags.Protocol, protocol } };
        _pullPagesPerSync.Record(pages, in tags);
    }

    /// <summary>Changes of one push by their result; use the <see cref="PushChangeStatus"/> constants.</summary>
    public void RecordPushChanges(string status, int count)
    {
        if (count <= 0)
        {
            return;
        }

        var tags = new TagList { { TelemetryTags.Status, status } };
        _pushChanges.Add(count, in tags);
    }

    /// <summary>A request refused before it reached storage; use the <see cref="ShedReason"/> constants.</summary>
    public void RecordShedRequest(string reason, string protocol)
    {
        var tags = new TagList { { TelemetryTags.Reason, reason }, { TelemetryTags.Protocol, protocol } };
        _shedRequests.Add(1, in tags);
    }

    /// <summary>A resilience pipeline event, from its Polly callback; use the <see cref="ResilienceEvent"/> constants.</summary>
    public void RecordResilienceEvent(string pipeline, string resilienceEvent)
    {
        var tags = new TagList { { TelemetryTags.Pipeline, pipeline }, { TelemetryTags.Event, resilienceEvent } };
        _resilienceEvents.Add(1, in tags);
    }

    /// <summary>
    /// Bytes held (+) or given back (-) while waiting on a device's network; use the <see cref="BufferedDirection"/> constants.
    /// </summary>
    public void AddBufferedBytes(string direction, long delta)
    {
        var tags = new TagList { { TelemetryTags.Direction, direction } };
        _buffered.Add(delta, in tags);
    }

    /// <summary>A device started (+1) or stopped (-1) waiting for changes.</summary>
    public void AddWaiter(string protocol, int delta)
    {
        var tags = new TagList { { TelemetryTags.Protocol, protocol } };
        _liveWaiters.Add(delta, in tags);
    }

    /// <summary>A wait answered at once instead; use the <see cref="LiveRefusal"/> constants.</summary>
    public void RecordLiveRefused(string protocol, string reason)
    {
        var tags = new TagList { { TelemetryTags.Protocol, protocol }, { TelemetryTags.Reason, reason } };
        _liveRefused.Add(1, in tags);
    }

    /// <summary>
    /// A woken device's answer was written: <paramref name="sinceArrival"/> after its notification reached
    /// this instance and, when the notification carried its stamp, <paramref name="sinceNotify"/> after the push sent it.
    /// </summary>
    public void RecordLiveDelivery(string protocol, TimeSpan sinceArrival, TimeSpan? sinceNotify)
    {
        var tags = new TagList { { TelemetryTags.Protocol, protocol } };
        _liveWakeDuration.Record(sinceArrival.TotalSeconds, in tags);
        if (sinceNotify is { } total)
        {
            _liveDeliveryDuration.Record(Math.Max(0, total.TotalSeconds), in tags);
        }
    }

    /// <summary>
    /// A change notification reached the listener <paramref name="lag"/> after the push sent it (clamped at 0: clocks differ).
    /// </summary>
    public void RecordNotificationLag(TimeSpan lag) => _liveNotificationLag.Record(Math.Max(0, lag.TotalSeconds));

    /// <summary>The change listener is listening again after losing its connection.</summary>
    public void RecordListenerReconnect() => _liveListenerReconnects.Add(1);

    /// <summary>A REST wait resumed without a pull (<see cref="Live.QuietWaits"/>).</summary>
    public void RecordLiveResumed() => _liveResumed.Add(1);

    /// <summary>
    /// <paramref name="users"/> users' change signals to the other instances had <paramref name="outcome"/>
    /// (<see cref="LiveSignalOutcome"/>).
    /// </summary>
    public void RecordLiveSignals(string outcome, int users)
    {
        var tags = new TagList { { TelemetryTags.Outcome, outcome } };
        _liveSignals.Add(users, in tags);
    }

    public void Dispose() => _meter.Dispose();
}
