using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// Live pull's voice: told of each commit that changed a user's sync data (<see cref="ICommitSignals"/>),
/// it wakes this instance's waiting devices of that user at once, with no database round trip, and tells
/// the other instances with <c>NOTIFY</c> (<see cref="ChangeNotification"/>) outside the push's transaction,
/// where it would make pushes commit one at a time (docs/performance.md, "Live pull without the NOTIFY ceiling,
/// 2026-11-29"). The users committed while the last notification was on its way, plus
/// <c>Sync:LiveSignalCoalesceMs</c>, go in one transaction of <c>pg_notify</c> calls on a connection of its own
/// (a pool of one named <see cref="PoolName"/>, on the primary, counted in the instance's share of the server's
/// connections): one commit per interval per instance, however many pushes it carries.
/// <para>
/// A signal can be lost after its push committed (the instance stops, its connection fails for longer than
/// the retries, or more than <see cref="MaxPendingUsers"/> users are waiting to be told); every wait ends with
/// a check of the user's committed sequence (<see cref="LivePull"/>), so a lost signal costs a waiting device
/// at most its wait (docs/operations.md, "Live pull: the change listener and its limits").
/// </para>
/// </summary>
internal sealed partial class ChangeSignals(
    StorageConnection connection,
    ChangeWaiters waiters,
    QuietWaits quiet,
    IOptions<SyncOptions> options,
    TimeProvider clock,
    ILogger<ChangeSignals> logger,
    SyncMetrics? metrics = null) : BackgroundService, ICommitSignals
{
    /// <summary>The sender's <c>application_name</c> in <c>pg_stat_activity</c>.</summary>
    public const string ApplicationName = "kobo-sync-signals";

    /// <summary>The sender's pool in Npgsql's metrics.</summary>
    public const string PoolName = "kobo-sync-signals";

    /// <summary>
    /// Users held to be told at most; past it a signal is dropped (and counted): its waiting devices find the change at their wait's end.
    /// </summary>
    public const int MaxPendingUsers = 100_000;

    private const string NotifySql = "SELECT pg_notify($1, $2)";
    private static readonly TimeSpan SendTimeout = TimeSpan.FromSeconds(5);

    private readonly object _gate = new();
    private readonly SemaphoreSlim _ready = new(0); // never disposed: a commit may still be told while the host stops
    private Dictionary<long, long> _pending = [];
    private DateTimeOffset _firstAt;

    /// <summary>This instance's id in the notifications it sends (its listener skips them): 12 hex digits, new at each start.</summary>
    public string Sender { get; } = Convert.ToHexStringLower(System.Security.Cryptography.RandomNumberGenerator.GetBytes(6));

    public void Committed(UserNo user, long seq)
    {
        if (!options.Value.LivePull)
        {
            return;
        }

        var now = clock.GetUtcNow();
        waiters.Notify(user.Value, seq, WakeSignal.Now(now));
        quiet.Forget(user.Value); // after the waiters: see QuietWaits.Remember
        if (Hold(user.Value, seq, now))
        {
            _ready.Release();
        }
    }

    /// <summary>Holds the user's change to be sent; true when the held set was empty (the sender is to be woken).</summary>
    private bool Hold(long user, long seq, DateTimeOffset at)
    {
        lock (_gate)
        {
            if (_pending.TryGetValue(user, out var held))
            {
                if (seq > held)
                {
                    _pending[user] = seq;
                }

                return false;
            }

            if (_pending.Count >= MaxPendingUsers)
            {
                metrics?.RecordLiveSignals(LiveSignalOutcome.Dropped, 1);
                return false;
            }

            _pending[user] = seq;
            if (_pending.Count > 1)
            {
                return false;
            }

            _firstAt = at;
            return true;
        }
    }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (!options.Value.LivePull)
        {
            return;
        }

        await using var dataSource = ChangeListener.CreateDataSource(
            await connection.GetConnectionStringAsync(stoppingToken).ConfigureAwait(false), ApplicationName);
        var coalesce = TimeSpan.FromMilliseconds(options.Value.LiveSignalCoalesceMs);
        var failures = 0;
        try
        {
            while (true)
            {
                await _ready.WaitAsync(stoppingToken).ConfigureAwait(false);
                if (coalesce > TimeSpan.Zero)
                {
                    await Task.Delay(coalesce, clock, stoppingToken).ConfigureAwait(false);
                }

                if (await SendAsync(dataSource, stoppingToken).ConfigureAwait(false))
                {
                    failures = 0;
                    continue;
                }

                dataSource.Clear(); // the next connection is a new one, on whichever server is the primary now
                await Task.Delay(ChangeListener.Backoff(failures++), clock, stoppingToken).ConfigureAwait(false);
                _ready.Release(); // what failed is held again: try again
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
            // What is held goes out once more before the instance stops, briefly.
            using var last = new CancellationTokenSource(SendTimeout);
            await SendAsync(dataSource, last.Token).ConfigureAwait(false);
        }
    }

    /// <summary>Sends what is held in one transaction; on failure holds it again (within the bound) and returns false.</summary>
    private async Task<bool> SendAsync(NpgsqlDataSource dataSource, CancellationToken cancellationToken)
    {
        Dictionary<long, long> batch;
        DateTimeOffset firstAt;
        lock (_gate)
        {
            if (_pending.Count == 0)
            {
                return true;
            }

            batch = _pending;
            firstAt = _firstAt;
            _pending = new Dictionary<long, long>(Math.Min(batch.Count, 1_024));
        }

        try
        {
            await using var sender = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
            await using var notify = new NpgsqlBatch(sender) { Timeout = (int)SendTimeout.TotalSeconds };
            foreach (var payload in ChangeNotification.Format(Sender, firstAt, batch))
            {
                notify.BatchCommands.Add(new NpgsqlBatchCommand(NotifySql)
                {
                    Parameters =
                    {
                        new NpgsqlParameter<string> { TypedValue = ChangeNotification.Channel },
                        new NpgsqlParameter<string> { TypedValue = payload },
                    },
                });
            }

            // One implicit transaction: one commit for all of them.
            await notify.ExecuteNonQueryAsync(cancellationToken).ConfigureAwait(false);
            metrics?.RecordLiveSignals(LiveSignalOutcome.Sent, batch.Count);
            return true;
        }
        catch (Exception error) when (error is NpgsqlException or TimeoutException or OperationCanceledException)
        {
            foreach (var (user, seq) in batch)
            {
                Hold(user, seq, firstAt);
            }

            metrics?.RecordLiveSignals(LiveSignalOutcome.Failed, batch.Count);
            LogSendFailed(logger, batch.Count, error.Message);
            return false;
        }
    }

    [LoggerMessage(
        Level = LogLevel.Warning,
        Message = "Live pull could not tell the other instances of {Users} users' changes ({Reason}); held to try again")]
    private static partial void LogSendFailed(ILogger logger, int users, string reason);
}
