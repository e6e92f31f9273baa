using System.Net.Http.Headers;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Resilience;
using Kobo.Sync.SyncApi.Tests.Support;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Generated requests to a Kobo device's annotation endpoints (<see cref="KoboAnnotationCalls"/>): none
/// gets a server error, every refusal is a problem+json with a detail, a refused request stores nothing.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class KoboAnnotationFuzzTests(FuzzedService service, ITestOutputHelper output) : IClassFixture<FuzzedService>
{
    [Fact]
    public async Task TheKoboAnnotationEndpointsAnswerEveryGeneratedRequestWithoutAServerError()
    {
        using var rest = new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = 8 })
        {
            BaseAddress = service.Host.RestAddress,
            Timeout = Timeout.InfiniteTimeSpan,
        };
        var secret = await LinkSecretAsync(rest);
        var count = FuzzRun.Scaled(800);
        var report = await service.FuzzAsync(count, (ledger, inputs) => FuzzRun.RunAsync(
            "kobo-annotations", KoboAnnotationCalls.Any(secret), inputs, call => call.ToString(), (call, cancel) => RestVerdicts.CheckAsync(rest, call, ledger, cancel)));
        output.WriteLine(report.ToString());
        Assert.True(report.Clean, report.ToString());
    }

    private static async Task<string> LinkSecretAsync(HttpClient rest)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, $"/v1/users/{FuzzedService.User}/kobo-links");
        request.Headers.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(FuzzedService.User, "kobo-fuzz"));
        using var response = await rest.SendAsync(request, TestTimeout.Token);
        var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.IsSuccessStatusCode, body);
        var endpoint = JsonDocument.Parse(body).RootElement.GetProperty("apiEndpoint").GetString()!;
        return endpoint[(endpoint.LastIndexOf('/') + 1)..];
    }
}
