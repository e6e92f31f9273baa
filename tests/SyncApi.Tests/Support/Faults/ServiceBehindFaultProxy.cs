using Kobo.Sync.Storage.Resilience;
using Microsoft.Extensions.DependencyInjection;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Support.Faults;

/// <summary>
/// The whole service on real Kestrel listeners, reaching a database of its own on the run's server
/// only through a <see cref="FaultProxy"/>, with a 200 ms request budget (the device SLA, what
/// docs/operations.md advises where pushes are small) and a shorter circuit break and readiness probe
/// so that faults show in test time. Tests fault the proxy and must <see cref="HealAsync"/> before they end.
/// </summary>
public class ServiceBehindFaultProxy : PostgresDatabase
{
    private SyncApiFactory? _factory;
    private FaultProxy? _proxy;

    public FaultProxy Proxy => _proxy ?? throw new InvalidOperationException("Not started.");

    public SyncApiFactory Factory => _factory ?? throw new InvalidOperationException("Not started.");

    public Uri RestAddress { get; } = new($"http://127.0.0.1:{LoopbackPorts.Free()}");

    public Uri GrpcAddress { get; } = new($"http://127.0.0.1:{LoopbackPorts.Free()}");

    public HttpClient Rest { get; private set; } = null!;

    public HttpClient Grpc { get; private set; } = null!;

    public StoragePipelines Pipelines => Factory.Services.GetRequiredService<StoragePipelines>();

    /// <summary>Settings on top of the fault-friendly defaults below.</summary>
    protected virtual IReadOnlyDictionary<string, string?> ExtraSettings => new Dictionary<string, string?>();

    public override async Task InitializeAsync()
    {
        await base.InitializeAsync();
        var server = new NpgsqlConnectionStringBuilder(ConnectionString);
        _proxy = FaultProxy.Start(server.Host!, server.Port);
        server.Host = "127.0.0.1";
        server.Port = _proxy.Port;

        var settings = new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = RestAddress.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = GrpcAddress.ToString().TrimEnd('/'),
            ["Storage:ConnectionString"] = server.ConnectionString,
            ["Resilience:RequestBudgetMs"] = "200",
            ["Resilience:BreakerBreakMs"] = "500",
            ["Resilience:BreakerSamplingMs"] = "1000",
            ["Resilience:ReadinessProbeTimeoutMs"] = "500",
            ["Resilience:StartRetryDelayMs"] = "250",
        };
        foreach (var (key, value) in ExtraSettings)
        {
            settings[key] = value;
        }

        _factory = new SyncApiFactory(settings);
        _factory.UseKestrel();
        _factory.StartServer();
        Rest = new HttpClient { BaseAddress = RestAddress, Timeout = TimeSpan.FromSeconds(20) };
        Grpc = Kobo.Sync.SyncApi.Tests.Grpc.Support.GrpcTestClient.NewHttpClient(GrpcAddress);
    }

    /// <summary>Ends any fault and waits (at most 10 s) until a device read succeeds again.</summary>
    public async Task HealAsync()
    {
        Proxy.Latency = TimeSpan.Zero;
        Proxy.Heal();
        var until = DateTime.UtcNow.AddSeconds(10);
        while (DateTime.UtcNow < until)
        {
            using var response = await Rest.SendAsync(DeviceRequests.GetUser(UnknownUser));
            if (response.StatusCode == System.Net.HttpStatusCode.NotFound)
            {
                return;
            }

            await Task.Delay(50);
        }

        throw new TimeoutException("The service did not recover within 10 s of the database's return.");
    }

    /// <summary>A user the database does not hold: its lookup reaches the database and answers 404.</summary>
    public const long UnknownUser = 987_654_321;

    public override async Task DisposeAsync()
    {
        Rest?.Dispose();
        Grpc?.Dispose();
        _factory?.Dispose();
        if (_proxy is not null)
        {
            await _proxy.DisposeAsync();
        }

        await base.DisposeAsync();
    }
}
