using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage.Stores;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.Storage.Devices;

/// <summary>
/// Devices' pulls, written behind (<see cref="IDevicePositions"/>): each pull replaces its device's entry
/// in memory, and every <c>Sync:DevicePositionFlushMs</c> the entries go to the store together, one
/// statement for the known devices (<see cref="PostgresSyncStore.RecordPullsAsync"/>), so a pull commits
/// nothing of its own. At most <c>Sync:MaxPendingDevicePositions</c> devices wait; past it a pull's record
/// is dropped and counted (<see cref="Dropped"/>). A write that fails keeps its entries for the next one
/// (a later pull of the same device wins); a device list asks for its user's entries first
/// (<see cref="FlushAsync"/>); the service's stop writes what is left.
/// </summary>
public sealed partial class DevicePositionWriter(
    PostgresSyncStore store,
    IOptions<SyncOptions> options,
    SyncSettings settings,
    TimeProvider clock,
    ILogger<DevicePositionWriter> logger) : BackgroundService, IDevicePositions
{
    /// <summary>Pulls per statement: the arrays of one write stay within a few hundred kilobytes.</summary>
    private const int ChunkSize = 5_000;

    private readonly TimeSpan _interval = TimeSpan.FromMilliseconds(options.Value.DevicePositionFlushMs);
    private readonly int _maxPending = options.Value.MaxPendingDevicePositions;

    // By user, then device: a device list takes its user's entries without a scan.
    private readonly Dictionary<long, Dictionary<string, DevicePull>> _pending = [];

    /// <summary>
    /// One write of everything held at a time, so a flush returns only once what was held before it is written.
    /// Never disposed (it holds no wait handle): a host disposed while its stop still writes must not make that write throw.
    /// </summary>
    private readonly SemaphoreSlim _flushing = new(1, 1);
    private int _count;
    private long _dropped;
    private long _droppedSinceLog;

    /// <summary>Devices whose pulls wait to be written.</summary>
    public int Pending
    {
        get
        {
            lock (_pending)
            {
                return _count;
            }
        }
    }

    /// <summary>Pulls not recorded since the start because <c>Sync:MaxPendingDevicePositions</c> devices were waiting.</summary>
    public long Dropped => Interlocked.Read(ref _dropped);

    public void Record(UserNo user, string deviceId, long? ackedSeq) =>
        Hold(new DevicePull(user, deviceId, ackedSeq, clock.GetUtcNow()), replace: true);

    public async Task FlushAsync(UserNo user, CancellationToken cancellationToken)
    {
        Dictionary<string, DevicePull>? mine;
        lock (_pending)
        {
            if (_pending.Remove(user.Value, out mine))
            {
                _count -= mine.Count;
            }
        }

        if (mine is not null)
        {
            await WriteAsync([.. mine.Values], cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>
    /// Writes every entry held now; what fails stays for the next write. Returns once every entry held
    /// when it was called is written or held again, including those a flush already running took.
    /// </summary>
    public async Task FlushAllAsync(CancellationToken cancellationToken)
    {
        await _flushing.WaitAsync(cancellationToken).ConfigureAwait(false);
        try
        {
            await FlushHeldAsync(cancellationToken).ConfigureAwait(false);
        }
        finally
        {
            _flushing.Release();
        }
    }

    private async Task FlushHeldAsync(CancellationToken cancellationToken)
    {
        List<DevicePull> all;
        lock (_pending)
        {
            if (_count == 0)
            {
                return;
            }

            all = new List<DevicePull>(_count);
            foreach (var devices in _pending.Values)
            {
                all.AddRange(devices.Values);
            }

            _pending.Clear();
            _count = 0;
        }

        for (var i = 0; i < all.Count; i += ChunkSize)
        {
            if (!await WriteAsync(all.GetRange(i, Math.Min(ChunkSize, all.Count - i)), cancellationToken).ConfigureAwait(false))
            {
                // The store is away: the rest waits for the next write rather than each chunk for its own timeout.
                foreach (var pull in all.Skip(i + ChunkSize))
                {
                    Hold(pull, replace: false);
                }

                return;
            }
        }
    }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        using var timer = new PeriodicTimer(_interval, clock);
        try
        {
            while (await timer.WaitForNextTickAsync(stoppingToken).ConfigureAwait(false))
            {
                await FlushAllAsync(stoppingToken).ConfigureAwait(false);
                var dropped = Interlocked.Exchange(ref _droppedSinceLog, 0);
                if (dropped > 0)
                {
                    LogDropped(logger, dropped, _maxPending);
                }
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
            // The stop writes what is left.
        }
    }

    public override async Task StopAsync(CancellationToken cancellationToken)
    {
        await base.StopAsync(cancellationToken).ConfigureAwait(false);
        await FlushAllAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>Writes <paramref name="pulls"/>; false when that failed, and they are held again for the next write.</summary>
    private async Task<bool> WriteAsync(List<DevicePull> pulls, CancellationToken cancellationToken)
    {
        try
        {
            await store.RecordPullsAsync(
                pulls, DeviceBounds.Now(settings.MaxDevicesPerUser, settings.RevocationLifetime, clock), cancellationToken)
                .ConfigureAwait(false);
            return true;
        }
        catch (Exception error)
        {
            // Kept for the next write (the stop's too); a pull of the same device recorded since is newer and wins.
            foreach (var pull in pulls)
            {
                Hold(pull, replace: false);
            }

            if (error is OperationCanceledException && cancellationToken.IsCancellationRequested)
            {
                throw;
            }

            LogFailed(logger, error, pulls.Count);
            return false;
        }
    }

    private void Hold(DevicePull pull, bool replace)
    {
        lock (_pending)
        {
            if (!_pending.TryGetValue(pull.User.Value, out var devices))
            {
                if (_count >= _maxPending)
                {
                    CountDropped();
                    return;
                }

                _pending[pull.User.Value] = devices = new Dictionary<string, DevicePull>(1, StringComparer.Ordinal);
            }

            if (devices.TryGetValue(pull.DeviceId, out var held))
            {
                if (replace || held.At < pull.At)
                {
                    devices[pull.DeviceId] = pull;
                }

                return;
            }

            if (_count >= _maxPending)
            {
                CountDropped();
                return;
            }

            devices[pull.DeviceId] = pull;
            _count++;
        }

        void CountDropped()
        {
            Interlocked.Increment(ref _dropped);
            Interlocked.Increment(ref _droppedSinceLog);
        }
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "Writing {Count} devices' pulls failed; they are kept for the next write")]
    private static partial void LogFailed(ILogger logger, Exception error, int count);

    [LoggerMessage(
        Level = LogLevel.Warning,
        Message = "{Dropped} devices' pulls were not recorded: {Max} devices were waiting to be written (Sync:MaxPendingDevicePositions)")]
    private static partial void LogDropped(ILogger logger, long dropped, int max);
}
