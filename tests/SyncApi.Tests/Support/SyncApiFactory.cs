using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Mvc.Testing;
using Microsoft.AspNetCore.TestHost;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Serilog.Core;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// The real service in process, with its logs captured and optional configuration overrides. Unless
/// the settings say otherwise it reads the run's shared demo database (<see cref="SharedDemoDatabase"/>),
/// accepts <see cref="TestTokens"/>' tokens, lets one device call as often as a test likes, and does not seed: it never starts a server of its own.
/// </summary>
public sealed class SyncApiFactory(IReadOnlyDictionary<string, string?>? settings = null) : WebApplicationFactory<Program>
{
    /// <summary>
    /// The request budget of the functional fixtures' services: what those tests check is the answer, not
    /// how fast the database gives it, so a request may wait 10 s for it instead of the default 1 s, and a
    /// busy machine does not turn a slow answer into a 503 the test did not ask for. Tests of the budget set their own.
    /// </summary>
    public const string FunctionalRequestBudgetMs = "10000";

    public CapturedLogs Logs { get; } = new();

    /// <summary>
    /// Settings added as the last configuration source of the application itself (not as host
    /// settings), so keys with dots, such as Serilog level overrides for a namespace, arrive intact.
    /// </summary>
    public IReadOnlyDictionary<string, string?>? AppConfiguration { get; init; }

    /// <summary>More test services (span processors, for example), registered after the service's own.</summary>
    public Action<IServiceCollection>? TestServices { get; init; }

    protected override void ConfigureWebHost(IWebHostBuilder builder)
    {
        builder.UseEnvironment("Production");
        var effective = new Dictionary<string, string?>
        {
            ["Demo:Seed"] = "false",
            ["Auth:SigningKey"] = TestTokens.SigningKey,
            ["Paging:CursorKey"] = TestTokens.CursorKey,
            // Tests call as one device in quick bursts; the admission tests set their own limits.
            ["Admission:PerDeviceRequestsPerSecond"] = "100000",
            ["Admission:PerDeviceBurst"] = "100000",
        };
        foreach (var (key, value) in settings ?? new Dictionary<string, string?>())
        {
            effective[key] = value;
        }

        if (!effective.ContainsKey("Storage:ConnectionString"))
        {
            effective["Storage:ConnectionString"] = SharedDemoDatabase.ConnectionString;
        }

        foreach (var (key, value) in effective)
        {
            builder.UseSetting(key, value);
        }

        if (AppConfiguration is { } appConfiguration)
        {
            builder.ConfigureAppConfiguration(configuration => configuration.AddInMemoryCollection(appConfiguration));
        }

        builder.ConfigureTestServices(services =>
        {
            services.AddSingleton<ILogEventSink>(Logs);
            TestServices?.Invoke(services);
        });
    }
}
