using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.DependencyInjection;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Support;

/// <summary>
/// The whole service (Program.cs: real storage on PostgreSQL, the real device token handler) on a
/// real Kestrel, with its REST and gRPC listeners on free loopback ports. As a class fixture it reads
/// the run's shared demo database; <see cref="SyncGrpcTestHost(string)"/> points it at another one.
/// Callers authenticate with <see cref="TestTokens"/>.
/// </summary>
public sealed class SyncGrpcTestHost : IDisposable
{
    private readonly SyncApiFactory _factory;

    public SyncGrpcTestHost()
        : this(SharedDemoDatabase.ConnectionString)
    {
    }

    internal SyncGrpcTestHost(
        string connectionString, Action<IServiceCollection>? testServices = null, IReadOnlyDictionary<string, string?>? settings = null)
    {
        GrpcAddress = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        RestAddress = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        var effective = new Dictionary<string, string?>
        {
            ["Endpoints:Grpc"] = GrpcAddress.ToString().TrimEnd('/'),
            ["Endpoints:Rest"] = RestAddress.ToString().TrimEnd('/'),
            ["Storage:ConnectionString"] = connectionString,
            // Tests of the budget set their own in settings, which come last.
            ["Resilience:RequestBudgetMs"] = SyncApiFactory.FunctionalRequestBudgetMs,
        };
        _factory = new SyncApiFactory(effective)
        {
            AppConfiguration = settings,
            TestServices = testServices,
        };
        _factory.UseKestrel();
        _factory.StartServer();
        Http = GrpcTestClient.NewHttpClient(GrpcAddress);
        Client = new GrpcTestClient(GrpcAddress);
    }

    public Uri GrpcAddress { get; }

    public Uri RestAddress { get; }

    /// <summary>host:port, as the interop clients take it.</summary>
    public string Target => $"{GrpcAddress.Host}:{GrpcAddress.Port}";

    public HttpClient Http { get; }

    public GrpcTestClient Client { get; }

    /// <summary>The service's own services.</summary>
    public IServiceProvider Services => _factory.Services;

    /// <summary>What the service logged.</summary>
    public CapturedLogs Logs => _factory.Logs;

    /// <summary>authorization metadata with a valid device token for <paramref name="user"/>.</summary>
    public static KeyValuePair<string, string>[] As(long user) => [new("authorization", $"Bearer {TestTokens.For(user)}")];

    public void Dispose()
    {
        Client.Dispose();
        Http.Dispose();
        _factory.Dispose();
    }
}
