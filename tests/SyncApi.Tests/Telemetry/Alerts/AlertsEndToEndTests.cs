using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Alerts;

/// <summary>
/// deploy/alerts end to end: a real Prometheus and Alertmanager watch the service and its PostgreSQL
/// while devices call. Freezing the database pages the error budget's fast burn; making WAL archiving
/// fail pages its alert; once both recover, both are resolved. The delays from fault to notification
/// are printed (docs/operations.md, "Measured end to end").
/// </summary>
[Collection(TelemetryCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class AlertsEndToEndTests(MonitoredService monitored, ITestOutputHelper output) : IClassFixture<MonitoredService>
{
    private const string Page = "page";
    private const string Burn = "KoboSyncErrorBudgetBurnFast";
    private const string Archiving = "KoboSyncWalArchivingFailing";
    private const string Firing = "firing";
    private const string Resolved = "resolved";

    /// <summary>Far above the delays measured (under 20 s), far below anything that would hang the run.</summary>
    private static readonly TimeSpan NotificationWait = TimeSpan.FromSeconds(90);

    [Fact]
    public async Task AFrozenDatabasePagesTheBurnRateFailingArchivingPagesItsAlertAndBothResolveOnRecovery()
    {
        var webhook = monitored.Webhook;
        using var devices = new CancellationTokenSource();
        var traffic = Task.WhenAll(Enumerable.Range(0, 2).Select(i => DeviceAsync(12 + i, devices.Token)));
        try
        {
            // Devices served as usual for a while: nothing pages.
            await Task.Delay(TimeSpan.FromSeconds(10));
            var (_, outcomes) = await monitored.Prometheus.QueryAsync("sum by (endpoint, outcome) (kobo_sync_requests_total)");
            Assert.False(webhook.Received.Any(n => n.Alerts.Any(a => a.Name is Burn or Archiving)), $"paged before any fault:\n{outcomes}\n{Log()}");

            // The database frozen (SIGSTOP): every device call ends 503 after the request budget.
            var frozen = webhook.Now;
            monitored.Postgres.Freeze();
            AlertWebhook.Notification? paged;
            try
            {
                paged = await webhook.WaitForAsync(Page, Burn, Firing, frozen, NotificationWait);
            }
            finally
            {
                monitored.Postgres.Thaw();
            }

            var thawed = webhook.Now;
            Assert.True(paged is not null, $"no page for {Burn} within {NotificationWait.TotalSeconds} s of the freeze:\n{Log()}");

            // archive_command fails while the database keeps writing (a WAL segment switched every second).
            await monitored.ExecuteAsync("ALTER SYSTEM SET archive_command = 'false'", "SELECT pg_reload_conf()");
            var archiveFailing = webhook.Now;
            using var writes = new CancellationTokenSource();
            var writing = WalSegmentsAsync(writes.Token);
            AlertWebhook.Notification? archivePaged;
            try
            {
                archivePaged = await webhook.WaitForAsync(Page, Archiving, Firing, archiveFailing, NotificationWait);
                Assert.True(archivePaged is not null, $"no page for {Archiving} within {NotificationWait.TotalSeconds} s of the failing archive command:\n{Log()}");

                await monitored.ExecuteAsync("ALTER SYSTEM SET archive_command = 'true'", "SELECT pg_reload_conf()");
            }
            finally
            {
                await writes.CancelAsync();
                await writing;
            }

            var archiveRecovered = webhook.Now;
            var archiveResolved = await webhook.WaitForAsync(Page, Archiving, Resolved, archiveRecovered, NotificationWait);
            var burnResolved = await webhook.WaitForAsync(Page, Burn, Resolved, thawed, NotificationWait);
            Assert.True(archiveResolved is not null, $"{Archiving} was not resolved within {NotificationWait.TotalSeconds} s of archiving again:\n{Log()}");
            Assert.True(burnResolved is not null, $"{Burn} was not resolved within {NotificationWait.TotalSeconds} s of the thaw:\n{Log()}");

            output.WriteLine($"rule durations divided by {MonitoredService.Scale}: windows 1h -> 60 s, 30m -> 30 s, 5m -> 5 s; for: 1m -> 1 s; scrape and evaluation every 1 s; Alertmanager group_wait 1 s");
            output.WriteLine($"{Burn}: paged {(paged!.At - frozen).TotalSeconds:F1} s after the freeze, resolved {(burnResolved!.At - thawed).TotalSeconds:F1} s after the thaw");
            output.WriteLine($"{Archiving}: paged {(archivePaged!.At - archiveFailing).TotalSeconds:F1} s after archive_command failed, resolved {(archiveResolved!.At - archiveRecovered).TotalSeconds:F1} s after it archived again");
            output.WriteLine(Log());
        }
        finally
        {
            await devices.CancelAsync();
            await traffic;
        }
    }

    /// <summary>A device reading its user every 50 ms, whatever the answer.</summary>
    private async Task DeviceAsync(long user, CancellationToken stop)
    {
        using var http = new HttpClient { BaseAddress = monitored.Rest, Timeout = TimeSpan.FromSeconds(10) };
        while (!stop.IsCancellationRequested)
        {
            try
            {
                await RestGetUserAsync(http, user, $"alerting-device-{user}");
            }
            catch (Exception e) when (e is HttpRequestException or TaskCanceledException)
            {
                // A call cut or timed out counts on the service's side; the device carries on.
            }

            try
            {
                await Task.Delay(50, stop);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    /// <summary>Writes a row and switches to a new WAL segment every second: each segment waits for the archiver.</summary>
    private async Task WalSegmentsAsync(CancellationToken stop)
    {
        await monitored.ExecuteAsync("CREATE TABLE IF NOT EXISTS alerting_wal (at timestamptz)");
        while (!stop.IsCancellationRequested)
        {
            await monitored.ExecuteAsync("INSERT INTO alerting_wal VALUES (now())", "SELECT pg_switch_wal()");
            try
            {
                await Task.Delay(1000, stop);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }

    private string Log() =>
        "notifications:\n" + string.Join('\n', monitored.Webhook.Received) + $"\n--- prometheus ---\n{monitored.Prometheus.Output}";
}
