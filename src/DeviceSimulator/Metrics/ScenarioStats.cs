namespace Kobo.Sync.DeviceSimulator.Metrics;

/// <summary>How one sync ended, after the device's retries.</summary>
public enum SyncOutcome
{
    Ok,

    /// <summary>The device gave up (retries exhausted, or an error it does not retry): a failed sync.</summary>
    Failed,
}

/// <summary>What a scenario's latencies measure.</summary>
public enum Measure
{
    /// <summary>Each sync (or step) from its intended start to its end, retries included.</summary>
    Sync,

    /// <summary>Live pull: each delivery, from the push's acknowledgement to the waiting device holding the change.</summary>
    Wake,
}

/// <summary>
/// The statistics of one scenario during a run: every sync's latency from its intended start, in one
/// histogram for the whole run and one per second of the run (the timeline), with the counts of
/// syncs, failures, attempts and retries. Thread-safe; recording takes a short lock. A live pull's
/// wake statistics (<see cref="Measure.Wake"/>) count deliveries instead of syncs, and carry
/// <see cref="Live"/>.
/// </summary>
public sealed class ScenarioStats(string name, Measure measure = Measure.Sync)
{
    private readonly Lock _lock = new();
    private readonly List<TimelineSecond> _timeline = [];
    private long _changes;

    public string Name { get; } = name;

    public Measure Measure { get; } = measure;

    /// <summary>Live pull: the waiting devices' deliveries and requests (set when the waiters stop).</summary>
    public LiveCounts? Live { get; set; }

    public LatencyHistogram Latency { get; } = new();

    public long Syncs { get; private set; }

    public long Failed { get; private set; }

    public long Attempts { get; private set; }

    public long Retries => Attempts - Syncs;

    /// <summary>Device sync: changes the devices received in their pulls.</summary>
    public long Changes => Interlocked.Read(ref _changes);

    /// <summary>Syncs that were meant to start but never did because the run was stopped.</summary>
    public long Dropped { get; private set; }

    public IReadOnlyList<TimelineSecond> Timeline
    {
        get
        {
            lock (_lock)
            {
                return _timeline.ToList();
            }
        }
    }

    /// <param name="second">Second of the run in which the sync was meant to start.</param>
    public void Record(int second, TimeSpan latency, SyncOutcome outcome, int attempts)
    {
        var micros = Math.Max(0, latency.Ticks / 10);
        lock (_lock)
        {
            Latency.Record(micros);
            Syncs++;
            Attempts += attempts;
            if (outcome == SyncOutcome.Failed)
            {
                Failed++;
            }

            while (_timeline.Count <= second)
            {
                _timeline.Add(new TimelineSecond(_timeline.Count));
            }

            var slot = _timeline[second];
            slot.Latency.Record(micros);
            if (outcome == SyncOutcome.Failed)
            {
                slot.Failed++;
            }
        }
    }

    public void RecordChanges(long count) => Interlocked.Add(ref _changes, count);

    public void RecordDropped()
    {
        lock (_lock)
        {
            Dropped++;
        }
    }

    /// <summary>Adds another run's (a shard's) statistics: histograms merge exactly.</summary>
    public void Add(ScenarioStats other)
    {
        lock (_lock)
        {
            Latency.Add(other.Latency);
            Syncs += other.Syncs;
            Failed += other.Failed;
            Attempts += other.Attempts;
            Dropped += other.Dropped;
            _changes += other.Changes;
            Live = Live is null ? other.Live : other.Live is null ? Live : Live.Add(other.Live);
            foreach (var second in other.Timeline)
            {
                while (_timeline.Count <= second.Second)
                {
                    _timeline.Add(new TimelineSecond(_timeline.Count));
                }

                _timeline[second.Second].Latency.Add(second.Latency);
                _timeline[second.Second].Failed += second.Failed;
            }
        }
    }

    internal void Restore(long syncs, long failed, long attempts, long dropped, long changes = 0)
    {
        _changes = changes;
        Syncs = syncs;
        Failed = failed;
        Attempts = attempts;
        Dropped = dropped;
    }

    internal void RestoreSecond(TimelineSecond second)
    {
        while (_timeline.Count <= second.Second)
        {
            _timeline.Add(new TimelineSecond(_timeline.Count));
        }

        _timeline[second.Second] = second;
    }
}

/// <summary>The syncs meant to start in one second of the run.</summary>
public sealed class TimelineSecond(int second)
{
    public int Second { get; } = second;

    public LatencyHistogram Latency { get; init; } = new();

    public long Failed { get; set; }
}
