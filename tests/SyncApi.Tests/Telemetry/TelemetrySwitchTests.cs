using System.Net;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

public sealed class TelemetrySwitchTests
{
    [Fact]
    public async Task WithTelemetrySwitchedOffTheServiceAnswersAndHasNoMetricsEndpoint()
    {
        using var factory = new SyncApiFactory(new Dictionary<string, string?> { ["Telemetry:Enabled"] = "false" });
        using var client = factory.CreateClient().WithToken(TestTokens.For(12));

        using var user = await client.GetAsync(new Uri("/v1/users/12", UriKind.Relative), TestTimeout.Token);
        using var metrics = await client.GetAsync(new Uri("/metrics", UriKind.Relative), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.OK, user.StatusCode);
        Assert.Equal(HttpStatusCode.NotFound, metrics.StatusCode);
        Assert.Single(factory.Logs.RequestLines, l => l.Properties["Route"].ToString() == "\"/v1/users/{userNo}\"");
    }
}
