using System.Diagnostics;
using Kobo.Sync.Storage;
using Kobo.Sync.Storage.Sql;
using Kobo.Sync.Storage.Standbys;
using Kobo.Sync.Storage.Telemetry;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// Live pull's ear on the database: one connection per instance, of its own (a pool of one named
/// <see cref="PoolName"/>, outside the requests' pool and budget, but counted in the instance's share of
/// the server's connections, <see cref="ConnectionBudget"/>), on the primary (the write connection
/// string; for a host list <c>Target Session Attributes=primary</c> unless it says otherwise), that
/// <c>LISTEN</c>s on <see cref="ChangeNotification.Channel"/> and hands each notification to
/// <see cref="ChangeWaiters"/>, skipping those this instance sent (<see cref="ChangeSignals"/> woke its own
/// waiters at the commit). Notifications sent while it is not listening are lost, so each time it
/// listens again (after a restart, a failover to a new primary, a cut connection) every waiting device
/// re-checks: one query reads the change sequence of every user with a waiting device, and the devices
/// behind it pull. A lost connection is retried at once, then after 0.1 s doubling up to 5 s. While no
/// notification comes, the connection is probed every <see cref="ProbeInterval"/> (a dead or demoted
/// server is noticed within <see cref="ProbeInterval"/> plus <see cref="ProbeTimeout"/>); nothing polls for changes.
/// It also tells <see cref="QuietWaits"/> when it starts and stops listening and whose changes it heard of,
/// and <see cref="RecentWrites"/> (when device reads go to standbys) the other instances' writes.
/// </summary>
internal sealed partial class ChangeListener(
    StorageConnection connection,
    ChangeSignals signals,
    ChangeWaiters waiters,
    QuietWaits quiet,
    IOptions<SyncOptions> options,
    IHostApplicationLifetime lifetime,
    TimeProvider clock,
    ILogger<ChangeListener> logger,
    SyncMetrics? metrics = null,
    StandbyReads? standbyReads = null) : BackgroundService
{
    /// <summary>The listener's <c>application_name</c> in <c>pg_stat_activity</c>.</summary>
    public const string ApplicationName = "kobo-sync-listener";

    /// <summary>The listener's pool in Npgsql's metrics.</summary>
    public const string PoolName = "kobo-sync-listener";

    internal static readonly TimeSpan ProbeInterval = TimeSpan.FromSeconds(10);
    internal static readonly TimeSpan ProbeTimeout = TimeSpan.FromSeconds(5);
    private static readonly TimeSpan FirstRetry = TimeSpan.FromMilliseconds(100);
    private static readonly TimeSpan MaxRetry = TimeSpan.FromSeconds(5);

    /// <summary>How many users' sequences one catch-up query reads.</summary>
    private const int CatchUpChunk = 5_000;

    private volatile bool _listening;

    /// <summary>True while the connection listens (and the catch-up after it has run).</summary>
    public bool IsListening => _listening;

    public override Task StartAsync(CancellationToken cancellationToken)
    {
        // Held requests are answered when the service starts to stop, before the server drains them.
        lifetime.ApplicationStopping.Register(waiters.Stop);
        return base.StartAsync(cancellationToken);
    }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        if (!options.Value.LivePull)
        {
            return;
        }

        try
        {
            await using var dataSource = CreateDataSource(
                await connection.GetConnectionStringAsync(stoppingToken).ConfigureAwait(false), PoolName);
            var lost = 0;
            var listenedBefore = false;
            while (!stoppingToken.IsCancellationRequested)
            {
                try
                {
                    await ListenAsync(dataSource, listenedBefore, () =>
                    {
                        listenedBefore = true;
                        lost = 0;
                    }, stoppingToken).ConfigureAwait(false);
                }
                catch (Exception error) when (!stoppingToken.IsCancellationRequested)
                {
                    _listening = false;
                    quiet.ListenerLost();
                    dataSource.Clear(); // the next connection is a new one, on whichever server is the primary now
                    if (lost++ == 0)
                    {
                        LogLost(logger, error.Message);
                    }
                    else
                    {
                        LogStillLost(logger, lost, error.Message);
                    }
                }

                var delay = lost <= 1 ? TimeSpan.Zero : Backoff(lost - 2);
                await Task.Delay(delay * (0.8 + (Random.Shared.NextDouble() * 0.4)), clock, stoppingToken).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException) when (stoppingToken.IsCancellationRequested)
        {
        }
        finally
        {
            _listening = false;
            quiet.ListenerLost();
        }
    }

    /// <summary>Listens until the connection fails (an exception) or the service stops.</summary>
    private async Task ListenAsync(NpgsqlDataSource dataSource, bool listenedBefore, Action listened, CancellationToken stoppingToken)
    {
        await using var listener = await dataSource.OpenConnectionAsync(stoppingToken).ConfigureAwait(false);
        listener.Notification += OnNotification;
        await using (var listen = new NpgsqlCommand($"LISTEN {ChangeNotification.Channel}", listener))
        {
            await listen.ExecuteNonQueryAsync(stoppingToken).ConfigureAwait(false);
        }

        // Anything committed from here on is notified; anything before, the catch-up sees.
        var woken = await CatchUpAsync(listener, stoppingToken).ConfigureAwait(false);
        _listening = true;
        quiet.ListenerUp();
        listened();
        if (listenedBefore)
        {
            metrics?.RecordListenerReconnect();
            LogListeningAgain(logger, DatabaseNodes.Of(listener), woken);
        }
        else
        {
            LogListening(logger, DatabaseNodes.Of(listener));
        }

        while (true)
        {
            if (!await listener.WaitAsync(ProbeInterval, stoppingToken).ConfigureAwait(false))
            {
                await ProbeAsync(listener, stoppingToken).ConfigureAwait(false);
            }
        }
    }

    private void OnNotification(object? sender, NpgsqlNotificationEventArgs e)
    {
        var received = Stopwatch.GetTimestamp();
        if (e.Channel != ChangeNotification.Channel || ChangeNotification.Parse(e.Payload) is not { } notification
            || notification.Sender == signals.Sender)
        {
            return;
        }

        metrics?.RecordNotificationLag(clock.GetUtcNow() - notification.StampedAt);
        var signal = new WakeSignal(received, notification.StampedAt);
        var writes = standbyReads?.Writes;
        foreach (var (user, seq) in notification.Changes)
        {
            writes?.Record(user, seq); // before the waiters: their pulls must not read a standby that lacks it
            waiters.Notify(user, seq, signal);
            quiet.Forget(user); // after the waiters: see QuietWaits.Remember
        }
    }

    /// <summary>Every user with a waiting device: where its change sequence stands; those behind it wake. Returns the users read.</summary>
    private async Task<int> CatchUpAsync(NpgsqlConnection listener, CancellationToken cancellationToken)
    {
        var users = waiters.Users.ToArray();
        for (var i = 0; i < users.Length; i += CatchUpChunk)
        {
            await using var command = new NpgsqlCommand(ChangeSeqQueries.ChangeSeqs, listener)
            {
                CommandTimeout = (int)ProbeTimeout.TotalSeconds * 2,
            };
            command.Parameters.Add(new NpgsqlParameter<long[]> { TypedValue = users[i..Math.Min(users.Length, i + CatchUpChunk)] });
            await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
            {
                var (user, seq) = (reader.GetInt64(0), reader.GetInt64(1));
                standbyReads?.Writes?.Record(user, seq); // read on the primary: what the woken devices' pulls must see
                waiters.Notify(user, seq, WakeSignal.Now());
            }
        }

        return users.Length;
    }

    /// <summary>A quiet connection may be a dead one: ask the server, briefly; a standby is no place to listen.</summary>
    private static async Task ProbeAsync(NpgsqlConnection listener, CancellationToken cancellationToken)
    {
        await using var probe = new NpgsqlCommand("SELECT pg_is_in_recovery()", listener)
        {
            CommandTimeout = (int)ProbeTimeout.TotalSeconds,
        };
        if (await probe.ExecuteScalarAsync(cancellationToken).ConfigureAwait(false) is true)
        {
            throw new InvalidOperationException("The listener's server is a standby now.");
        }
    }

    /// <summary>The wait before retry <paramref name="attempt"/> (from 0) of live pull's connections: 0.1 s doubling up to 5 s.</summary>
    internal static TimeSpan Backoff(int attempt) => TimeSpan.FromTicks(
        Math.Min(MaxRetry.Ticks, FirstRetry.Ticks << Math.Min(attempt, 10)));

    /// <summary>A pool of one connection named <paramref name="name"/> (also its <c>application_name</c>), on the primary.</summary>
    internal static NpgsqlDataSource CreateDataSource(string connectionString, string name)
    {
        var builder = new NpgsqlConnectionStringBuilder(StorageDataSource.WithServiceDefaults(connectionString))
        {
            ApplicationName = name,
            MinPoolSize = 0,
            MaxPoolSize = 1,
        };
        if (builder.Host?.Contains(',', StringComparison.Ordinal) == true
            && !connectionString.Contains("Target Session Attributes", StringComparison.OrdinalIgnoreCase)
            && !connectionString.Contains("TargetSessionAttributes", StringComparison.OrdinalIgnoreCase))
        {
            builder.TargetSessionAttributes = "primary";
        }

        return new NpgsqlDataSourceBuilder(builder.ConnectionString) { Name = name }.Build();
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Change listener listening on {Node}")]
    private static partial void LogListening(ILogger logger, string node);

    [LoggerMessage(
        Level = LogLevel.Information, Message = "Change listener listening again on {Node}; devices of {Users} users re-checked")]
    private static partial void LogListeningAgain(ILogger logger, string node, int users);

    [LoggerMessage(
        Level = LogLevel.Warning, Message = "Change listener is not listening ({Reason}); waiting devices re-check once it listens again")]
    private static partial void LogLost(ILogger logger, string reason);

    [LoggerMessage(Level = LogLevel.Debug, Message = "Change listener still not listening after {Attempts} attempts: {Reason}")]
    private static partial void LogStillLost(ILogger logger, int attempts, string reason);
}
