using System.Diagnostics;
using System.Globalization;
using Kobo.Sync.DeviceSimulator.Determinism;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Scenarios.Sync;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Live;

/// <summary>Where a live scenario's devices and users start, after those of the run's earlier live scenarios.</summary>
public readonly record struct LiveSlot(long FirstDevice, long FirstUser);

/// <summary>
/// Live pull (REST long-poll or gRPC WatchChanges): <c>waitingUsers</c> users each have
/// <c>waitersPerUser</c> devices that wait for changes for the whole run, and one more device that
/// pushes. Each sync of the engine is one push of <c>pushBatch</c> new highlights by the pushing device
/// of a user drawn at random, through the service over the same transport. Every waiting device of
/// that user must then receive every pushed change: the <see cref="DeliveryLedger"/> records each
/// delivery's wake latency (from the push's acknowledgement to the device holding the change) as the
/// step <c>/wake</c>, and after the last push and the drain counts what was missed.
/// Devices and users are contiguous: the user of group g is the (slot's first user + g)-th user from
/// the shard's first device number, its waiting devices and its pushing device the next
/// <c>waitersPerUser + 1</c> device numbers of the slot. The pushed keys (<c>live{seed}-{run}-{device}-{push}-{i}</c>,
/// warm-up pushes <c>livew...</c>) carry the run's start, so a run never replays an earlier one's
/// changes (a replayed push changes nothing and wakes nobody).
/// </summary>
public sealed class LiveScenario : ISyncSessionScenario, IWaitingScenario, IDisposable
{
    private readonly ISyncClient _pushes;
    private readonly IWaiterTransport _transport;
    private readonly ScenarioLoad _load;
    private readonly DeviceBehaviour _behaviour;
    private readonly int _seed;
    private readonly long _firstDevice;
    private readonly long _firstUser;
    private readonly long _users;
    private readonly SemaphoreSlim _catchingUp;
    private readonly string _run = Base36(DateTimeOffset.UtcNow.ToUnixTimeMilliseconds() / 100);
    private readonly DeliveryLedger _ledger;
    private readonly WaiterCounters _counters = new();
    private readonly CancellationTokenSource _stop = new();
    private readonly List<Task> _waiters = [];

    public LiveScenario(
        ReadSampling sampling, ISyncClient pushes, IWaiterTransport transport, ScenarioLoad load, DeviceBehaviour behaviour,
        int seed, LiveSlot slot, SemaphoreSlim catchingUp)
    {
        _pushes = pushes;
        _transport = transport;
        _load = load;
        _behaviour = behaviour;
        _seed = seed;
        _catchingUp = catchingUp;
        var fleet = sampling.Fleet;
        var devices = DevicesNeeded(load);
        if (slot.FirstDevice + devices > fleet.Count)
        {
            throw new ProfileException(
                $"scenario {load.Name}: {load.WaitingUsers} waiting users with {load.WaitersPerUser + 1} devices each need " +
                $"{slot.FirstDevice + devices:N0} devices (with the run's other live scenarios), " +
                $"the profile's devices give this shard {fleet.Count:N0}");
        }

        if (slot.FirstUser + load.WaitingUsers > sampling.Users)
        {
            throw new ProfileException(
                $"scenario {load.Name}: {slot.FirstUser + load.WaitingUsers:N0} waiting users (with the run's other live scenarios), " +
                $"the data set has {sampling.Users:N0}");
        }

        _firstDevice = fleet.First + slot.FirstDevice;
        _firstUser = fleet.First + slot.FirstUser;
        _users = sampling.Users;
        _ledger = new DeliveryLedger(load.WaitersPerUser, new ScenarioStats($"{load.Name}/wake", Measure.Wake));
    }

    /// <summary>Books the pushed highlights go to: the seed has at least this many books.</summary>
    public const int Books = 1_000;

    public ReadKind Read => ReadKind.Live;

    public Transport Transport => _pushes.Transport;

    public IReadOnlyList<ScenarioStats> StepStats => [_ledger.Wake];

    public DeliveryLedger Ledger => _ledger;

    /// <summary>Device numbers a live scenario takes: each waiting user's waiting devices and its pushing device.</summary>
    public static long DevicesNeeded(ScenarioLoad load) => (long)load.WaitingUsers * (load.WaitersPerUser + 1);

    /// <summary>The user whose devices form group <paramref name="group"/>.</summary>
    public long UserOf(int group) => ((_firstUser + group) % _users) + 1;

    /// <summary>
    /// Waiting device <paramref name="index"/> of group <paramref name="group"/>; index <c>waitersPerUser</c> is the group's pushing
    /// device.
    /// </summary>
    public SimulatedDevice DeviceOf(int group, int index) =>
        SimulatedDevice.Of(_firstDevice + ((long)group * (_load.WaitersPerUser + 1)) + index, _seed);

    /// <summary>The pushing device of the group drawn for the <paramref name="sequence"/>-th push.</summary>
    public SimulatedDevice DeviceFor(long sequence) =>
        DeviceOf((int)(StableHash.Of(_seed, sequence, 31 + (int)Transport) % (ulong)_load.WaitingUsers), _load.WaitersPerUser);

    public async Task StartWaitersAsync(CancellationToken cancellationToken)
    {
        var context = new WaiterContext(_ledger, _counters, _catchingUp, _behaviour, _load.PageSize, _load.WaitSeconds);
        var rate = _load.WaiterStartsPerSecond;
        for (var group = 0; group < _load.WaitingUsers; group++)
        {
            for (var index = 0; index < _load.WaitersPerUser; index++)
            {
                // Devices come online at the scenario's rate, not all in the same instant: each wait's first
                // pull takes an admission slot of the service, and a herd of them is refused with 503.
                var device = new WaitingDevice(group, index, UserOf(group), DeviceOf(group, index));
                var due = TimeSpan.FromSeconds(_waiters.Count / rate);
                _waiters.Add(Task.Run(
                    async () =>
                    {
                        await Task.Delay(due, _stop.Token);
                        await _transport.RunAsync(device, context, _stop.Token);
                    },
                    CancellationToken.None));
            }
        }

        // Catching up is bounded like the engine's syncs; the start is bounded too, for a service that never answers.
        var bound = Stopwatch.StartNew();
        var limit = TimeSpan.FromSeconds(30 + (2 * _waiters.Count / rate));
        while (context.Ready < _waiters.Count && bound.Elapsed < limit)
        {
            await Task.Delay(20, cancellationToken);
        }

        // Every device has sent its first wait: a moment for those waits to reach the service.
        await Task.Delay(TimeSpan.FromSeconds(1), cancellationToken);
    }

    public void OpenWindow() => _counters.Open();

    public void Dispose() => _stop.Dispose();

    public async Task StopWaitersAsync(bool drain, CancellationToken cancellationToken)
    {
        if (_stop.IsCancellationRequested)
        {
            return;
        }

        try
        {
            var draining = Stopwatch.StartNew();
            while (drain && _ledger.Owed > 0 && draining.Elapsed < TimeSpan.FromSeconds(_load.DrainSeconds))
            {
                await Task.Delay(20, cancellationToken);
            }
        }
        catch (OperationCanceledException)
        {
            // The run was stopped: count what arrived so far.
        }

        var counts = _counters.Close(_ledger.Count(_waiters.Count));
        await _stop.CancelAsync();
        try
        {
            await Task.WhenAll(_waiters);
        }
        catch (OperationCanceledException)
        {
            // A device stopped before its time to come online.
        }
        _ledger.Wake.Live = counts;
    }

    /// <summary>A warm-up push (unmeasured, owed to nobody): it wakes the waiting devices of its user all the same.</summary>
    public async ValueTask<SyncAttempt> AttemptAsync(SimulatedDevice device, CancellationToken cancellationToken)
    {
        var (batch, _) = Batch(device, "w", device.Number.ToString(CultureInfo.InvariantCulture));
        return (await _pushes.PushAsync(UserOfDevice(device), batch, device, cancellationToken)).Attempt;
    }

    public async ValueTask<(SyncAttempt Outcome, int Attempts)> SessionAsync(
        SimulatedDevice device, long sequence, int second, DeviceRetryPipeline steps, CancellationToken cancellationToken)
    {
        var group = GroupOf(device);
        var (batch, ids) = Batch(device, string.Empty, sequence.ToString(CultureInfo.InvariantCulture));
        _ledger.Expect(ids, group, second);
        var session = new SessionSteps(steps, _behaviour, second);
        long acknowledged = 0;
        IReadOnlyList<string>? stored = null;
        var outcome = await session.RunAsync(
            null,
            async ct =>
            {
                var (attempt, answered) = await _pushes.PushAsync(UserOf(group), batch, device, ct);
                acknowledged = Stopwatch.GetTimestamp();
                stored = answered;
                return attempt;
            },
            cancellationToken);
        if (outcome.Ok && stored is not null && stored.SequenceEqual(ids))
        {
            _ledger.Acknowledge(ids, acknowledged);
            return (outcome, session.Attempts);
        }

        _ledger.Fail(ids);
        return (outcome.Ok ? SyncAttempt.Permanent("push ids") : outcome, session.Attempts);
    }

    private int GroupOf(SimulatedDevice device) => (int)((device.Number - _firstDevice) / (_load.WaitersPerUser + 1));

    private long UserOfDevice(SimulatedDevice device) => UserOf(GroupOf(device));

    /// <summary>
    /// Keys <c>live{seed}-{run}-{device}-{push}-{i}</c>; a warm-up's (<paramref name="kind"/> <c>w</c>) <c>livew{seed}-...</c>.
    /// </summary>
    private (List<NewHighlight> Batch, List<string> Ids) Batch(SimulatedDevice device, string kind, string push)
    {
        var user = new UserNo(UserOfDevice(device));
        var now = DateTimeOffset.UtcNow;
        var batch = new List<NewHighlight>(_load.PushBatch);
        var ids = new List<string>(_load.PushBatch);
        for (var i = 0; i < _load.PushBatch; i++)
        {
            var book = new BookNo(device.Pick(Books, salt: 100 + i) + 1);
            var key = HighlightKey.Parse(
                string.Create(CultureInfo.InvariantCulture, $"live{kind}{_seed}-{_run}-{device.Number}-{push}-{i}"));
            ids.Add(new HighlightId(user, book, key).ToString());
            batch.Add(
                NewHighlight.Drawn(
                    device, i, book.Value, key.Value,
                    string.Create(CultureInfo.InvariantCulture, $"Live highlight {i} of push {push}"), now));
        }

        return (batch, ids);
    }

    private static string Base36(long value)
    {
        const string digits = "0123456789abcdefghijklmnopqrstuvwxyz";
        var text = new System.Text.StringBuilder();
        do
        {
            text.Insert(0, digits[(int)(value % 36)]);
            value /= 36;
        }
        while (value > 0);
        return text.ToString();
    }
}
