using System.Net;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests;

public sealed class ServiceDefaultsTests : IDisposable
{
    private readonly SyncApiFactory _factory = new();

    [Fact]
    public async Task LivenessAnswersHealthyWithoutAnyDependency()
    {
        using var client = _factory.CreateClient();

        using var response = await client.GetAsync("/healthz/live", TestTimeout.Token);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("Healthy", await response.Content.ReadAsStringAsync(TestTimeout.Token));
    }

    [Fact]
    public async Task UnknownRouteAnswersProblemJsonCarryingTheTraceIdOfItsLogLine()
    {
        using var client = _factory.CreateClient();

        using var response = await client.GetAsync("/v1/nothing-here", TestTimeout.Token);

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token));
        Assert.Equal(404, problem.RootElement.GetProperty("status").GetInt32());
        Assert.NotEmpty(problem.RootElement.GetProperty("detail").GetString()!);
        var traceId = problem.RootElement.GetProperty("traceId").GetString();
        Assert.Matches("^[0-9a-f]{32}$", traceId);

        var line = Assert.Single(_factory.Logs.RequestLines);
        Assert.Equal(traceId, line.TraceId?.ToHexString());
        Assert.Equal("404", line.Properties["StatusCode"].ToString());
        Assert.Equal("\"(unmatched)\"", line.Properties["Route"].ToString());
    }

    [Fact]
    public async Task EveryRequestGetsExactlyOneLogLineWithRouteStatusAndDuration()
    {
        using var client = _factory.CreateClient();

        for (var i = 0; i < 5; i++)
        {
            using var response = await client.GetAsync("/healthz/live", TestTimeout.Token);
        }

        Assert.Equal(5, _factory.Logs.RequestLines.Count);
        Assert.All(_factory.Logs.RequestLines, line =>
        {
            Assert.Equal("\"/healthz/live\"", line.Properties["Route"].ToString());
            Assert.Equal("200", line.Properties["StatusCode"].ToString());
            Assert.True(line.Properties.ContainsKey("ElapsedMs"));
            Assert.NotNull(line.TraceId);
        });
    }

    [Fact]
    public async Task QueryStringsNeverReachTheLogs()
    {
        using var client = _factory.CreateClient();
        const string secret = "cursor-value-that-must-stay-private";

        using var response = await client.GetAsync($"/healthz/live?cursor={secret}&access_token={secret}", TestTimeout.Token);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.NotEmpty(_factory.Logs.RequestLines);
        Assert.DoesNotContain(secret, _factory.Logs.RenderAll(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task AMethodAPathDoesNotTakeIsAProblemThatNamesTheMethod()
    {
        using var client = _factory.CreateClient().WithToken(TestTokens.For(12));
        using var request = new HttpRequestMessage(HttpMethod.Patch, "/v1/users/12/highlights");

        using var response = await client.SendAsync(request, TestTimeout.Token);

        Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token));
        Assert.Contains("PATCH", problem.RootElement.GetProperty("detail").GetString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(null, "/v1/users/12", 401)]
    [InlineData("valid", "/v1/users/not-a-number", 400)]
    [InlineData("valid", "/v1/users/13", 403)]
    public async Task ARefusalIsProblemJsonWithADetailWhateverTheAcceptHeaderAsks(string? token, string path, int status)
    {
        using var client = _factory.CreateClient();
        if (token is not null)
        {
            client.WithToken(TestTokens.For(12));
        }

        using var request = new HttpRequestMessage(HttpMethod.Get, path);
        request.Headers.Accept.ParseAdd("application/xml");

        using var response = await client.SendAsync(request, TestTimeout.Token);

        Assert.Equal(status, (int)response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token));
        Assert.NotEmpty(problem.RootElement.GetProperty("detail").GetString()!);
        Assert.Equal(status, problem.RootElement.GetProperty("status").GetInt32());
    }

    public void Dispose() => _factory.Dispose();
}
