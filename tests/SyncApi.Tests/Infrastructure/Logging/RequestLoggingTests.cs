using System.Net;
using Kobo.Sync.SyncApi.Infrastructure.Logging;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Logging;

public sealed class RequestLoggingTests
{
    /// <summary>Everything turned up to the most verbose level, the framework's own namespaces included.</summary>
    private static readonly Dictionary<string, string?> Verbose = new()
    {
        ["Serilog:MinimumLevel:Default"] = "Verbose",
        ["Serilog:MinimumLevel:Override:Microsoft.AspNetCore"] = "Verbose",
        ["Serilog:MinimumLevel:Override:Microsoft.Hosting.Lifetime"] = "Verbose",
    };

    /// <summary>What ASP.NET Core's request and connection scopes would add to every line.</summary>
    private static readonly string[] ScopeProperties = ["RequestPath", "RequestId", "ConnectionId", "Scope"];

    [Fact]
    public async Task ARequestIsOneLineWithItsRouteTemplateWhileNoLineCarriesTheRequestScopeEvenAtTheMostVerboseLevel()
    {
        using var factory = new SyncApiFactory { AppConfiguration = Verbose };
        using var client = factory.CreateClient().WithToken(TestTokens.For(12));

        using var response = await client.GetAsync(new Uri("/v1/users/12?probe=query-value", UriKind.Relative), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        var line = Assert.Single(factory.Logs.RequestLines);
        Assert.Equal(RequestLogging.MessageTemplate, line.MessageTemplate.Text);
        Assert.Equal("\"/v1/users/{userNo}\"", line.Properties["Route"].ToString());
        Assert.Equal("\"GET\"", line.Properties["Method"].ToString());
        Assert.Equal("200", line.Properties["StatusCode"].ToString());
        Assert.NotNull(line.TraceId);
        Assert.NotNull(line.SpanId);
        using var rendered = new StringWriter();
        SerilogSetup.ProductionFormatter().Format(line, rendered);
        Assert.DoesNotContain("/v1/users/12", rendered.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("query-value", rendered.ToString(), StringComparison.Ordinal);

        // The framework logged plenty at this level, and none of it carries a scope's properties.
        Assert.True(factory.Logs.Events.Count > 3, $"only {factory.Logs.Events.Count} events at the most verbose level");
        Assert.All(factory.Logs.Events, e => Assert.DoesNotContain(ScopeProperties, e.Properties.ContainsKey));
    }

    [Fact]
    public async Task TheMetricsScrapeGetsNoLineEvenAtTheMostVerboseLevel()
    {
        using var factory = new SyncApiFactory { AppConfiguration = Verbose };
        using var client = factory.CreateClient();

        using var scrape = await client.GetAsync(new Uri("/metrics", UriKind.Relative), TestTimeout.Token);
        using var probe = await client.GetAsync(new Uri("/healthz/live", UriKind.Relative), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.OK, scrape.StatusCode);
        var line = Assert.Single(factory.Logs.RequestLines);
        Assert.Equal("\"/healthz/live\"", line.Properties["Route"].ToString());
    }

    [Fact]
    public async Task AnAnswerTheStoreCouldNotGiveIsLoggedAsAWarningWithItsRoute()
    {
        // No database answers here: the read fails after its pipeline's retries.
        using var factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Storage:ConnectionString"] = "Host=127.0.0.1;Port=1;Database=none;Username=none;Password=none;Timeout=1",
        });
        using var client = factory.CreateClient().WithToken(TestTokens.For(12));

        using var response = await client.GetAsync(new Uri("/v1/users/12", UriKind.Relative), TestTimeout.Token);

        // 503 with retry advice: the device comes back; the circuit's own line says what the store did.
        Assert.Equal(HttpStatusCode.ServiceUnavailable, response.StatusCode);
        var line = Assert.Single(factory.Logs.RequestLines);
        Assert.Equal(Serilog.Events.LogEventLevel.Warning, line.Level);
        Assert.Equal("\"/v1/users/{userNo}\"", line.Properties["Route"].ToString());
        Assert.Equal(((int)response.StatusCode).ToString(System.Globalization.CultureInfo.InvariantCulture), line.Properties["StatusCode"].ToString());
    }
}
