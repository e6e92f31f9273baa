using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Alerts;

/// <summary>
/// The service on real Kestrel (its default 1 s request budget, so a busy machine does not page) in
/// front of a PostgreSQL of its own (WAL archiving on, to a command the test can make fail), watched as
/// in production: a PostgreSQL exporter beside the server, a real Prometheus scraping both every second
/// and evaluating deploy/alerts' rules (durations divided by <see cref="Scale"/>), a real Alertmanager
/// routing them by deploy/alerts/alertmanager.yml to a webhook receiver of the test's own.
/// </summary>
public sealed class MonitoredService : IAsyncLifetime
{
    /// <summary>Every rule duration is divided by this: a 1h window lasts a minute, a 1m <c>for:</c> a second.</summary>
    public const int Scale = 60;

    private readonly ControllablePostgres _postgres = new();
    private readonly List<IAsyncDisposable> _daemons = [];
    private string _directory = string.Empty;

    public SyncApiFactory Service { get; private set; } = null!;

    public Uri Rest { get; } = new($"http://127.0.0.1:{LoopbackPorts.Free()}");

    public AlertWebhook Webhook { get; } = new();

    public PrometheusServer Prometheus { get; private set; } = null!;

    public ControllablePostgres Postgres => _postgres;

    public string ConnectionString => _postgres.ConnectionString;

    public async Task InitializeAsync()
    {
        _directory = Directory.CreateTempSubdirectory("kobo-alerting-").FullName;
        await _postgres.InitializeAsync();
        // Archiving needs a restart to turn on; the command itself is changed with a reload.
        await ExecuteAsync("ALTER SYSTEM SET archive_mode = on", "ALTER SYSTEM SET archive_command = 'true'");
        await _postgres.StopAsync();
        await _postgres.StartAsync();

        Service = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = Rest.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}",
            ["Storage:ConnectionString"] = _postgres.ConnectionString,
            ["Resilience:BreakerBreakMs"] = "500",
            ["Resilience:ReadinessProbeTimeoutMs"] = "500",
        });
        Service.UseKestrel();
        Service.StartServer();
        // Requests before the migrations ran are refused (503): Prometheus starts once the service is ready.
        using (var http = new HttpClient { BaseAddress = Rest, Timeout = TimeSpan.FromSeconds(5) })
        {
            var ready = false;
            for (var clock = System.Diagnostics.Stopwatch.StartNew(); !ready && clock.Elapsed < TimeSpan.FromSeconds(30); await Task.Delay(200))
            {
                using var answer = await http.GetAsync(new Uri("/healthz/ready", UriKind.Relative));
                ready = answer.IsSuccessStatusCode;
            }

            Assert.True(ready, "the service was not ready within 30 s");
        }

        var database = new NpgsqlConnectionStringBuilder(_postgres.ConnectionString);
        var exporterPort = LoopbackPorts.Free();
        _daemons.Add(await MonitoringDaemon.StartAsync(
            "prometheus-postgres-exporter",
            "prometheus-postgres-exporter",
            [$"--web.listen-address=127.0.0.1:{exporterPort}", "--log.level=warn"],
            new Uri($"http://127.0.0.1:{exporterPort}/metrics"),
            new Dictionary<string, string>
            {
                ["DATA_SOURCE_NAME"] = $"host=127.0.0.1 port={database.Port} user={database.Username} password={database.Password} dbname={database.Database} sslmode=disable connect_timeout=2",
            }));

        var alertmanagerPort = LoopbackPorts.Free();
        var alertmanagerConfig = Path.Combine(_directory, "alertmanager.yml");
        await File.WriteAllTextAsync(alertmanagerConfig, AlertingFiles.TestAlertmanager(Webhook.Address));
        _daemons.Add(await MonitoringDaemon.StartAsync(
            "prometheus-alertmanager",
            "prometheus-alertmanager",
            [
                $"--config.file={alertmanagerConfig}",
                $"--storage.path={Path.Combine(_directory, "alertmanager")}",
                $"--web.listen-address=127.0.0.1:{alertmanagerPort}",
                "--cluster.listen-address=",
                "--log.level=warn",
            ],
            new Uri($"http://127.0.0.1:{alertmanagerPort}/-/ready"),
            workingDirectory: _directory));

        Prometheus = await PrometheusServer.StartAsync(
            $"""
            global:
              scrape_interval: 1s
              scrape_timeout: 1s
              evaluation_interval: 1s
            rule_files: [slo.rules.yml, database.rules.yml]
            alerting:
              alertmanagers:
                - static_configs:
                    - targets: ["127.0.0.1:{alertmanagerPort}"]
            scrape_configs:
              - job_name: kobo-sync
                static_configs:
                  - targets: ["{Rest.Host}:{Rest.Port}"]
              - job_name: postgres
                static_configs:
                  - targets: ["127.0.0.1:{exporterPort}"]
            """,
            new Dictionary<string, string>
            {
                ["slo.rules.yml"] = AlertingFiles.ScaledRules("slo.rules.yml", Scale),
                ["database.rules.yml"] = AlertingFiles.ScaledRules("database.rules.yml", Scale),
            });
        foreach (var job in new[] { "kobo-sync", "postgres" })
        {
            var up = await Prometheus.WaitForValueAsync($"up{{job=\"{job}\"}}", 1, TimeSpan.FromSeconds(30));
            Assert.True(up == 1, $"{job} was not scraped: up={up}\n{Prometheus.Output}");
        }
    }

    /// <summary>Runs statements on the server as its superuser, one after the other.</summary>
    public async Task ExecuteAsync(params string[] statements)
    {
        // Unpooled: a pooled connection would not survive the restart that turns archiving on.
        await using var connection = new NpgsqlConnection(new NpgsqlConnectionStringBuilder(_postgres.ConnectionString) { Pooling = false }.ConnectionString);
        await connection.OpenAsync(TestTimeout.Token);
        foreach (var statement in statements)
        {
            await using var command = new NpgsqlCommand(statement, connection);
            await command.ExecuteNonQueryAsync(TestTimeout.Token);
        }
    }

    public async Task DisposeAsync()
    {
        if (Prometheus is not null)
        {
            await Prometheus.DisposeAsync();
        }

        foreach (var daemon in Enumerable.Reverse(_daemons))
        {
            await daemon.DisposeAsync();
        }

        Service?.Dispose();
        await Webhook.DisposeAsync();
        await _postgres.DisposeAsync();
        try
        {
            Directory.Delete(_directory, recursive: true);
        }
        catch (IOException)
        {
            // A file still held open: the temporary directory is left for the system to clear.
        }
    }
}
