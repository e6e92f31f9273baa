using System.Net;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Polly.CircuitBreaker;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// The database vanishes behind a black hole (connections accepted, nothing answered, as in a
/// network partition): device calls must not hang on it, readiness must say so, and the service
/// must come back by itself when the database does.
/// </summary>
public sealed class DatabaseBlackHoleTests(ServiceBehindFaultProxy service) : IClassFixture<ServiceBehindFaultProxy>
{
    private const long User = ServiceBehindFaultProxy.UnknownUser;

    /// <summary>Far above the 200 ms budget, far below a connect or command timeout: only a hang exceeds it.</summary>
    private static readonly TimeSpan NoHang = TimeSpan.FromSeconds(2);

    [Fact]
    public async Task ABlackHoledDatabaseOpensTheCircuitAndEveryDeviceCallGets503WithRetryAfter()
    {
        Assert.Equal(404, (await RestGetUserAsync(service.Rest, User)).Status);
        service.Proxy.BlackHole();
        try
        {
            var answers = new List<Answer>();
            for (var i = 0; i < 30; i++)
            {
                answers.Add(await RestGetUserAsync(service.Rest, User));
            }

            Assert.All(answers, a =>
            {
                Assert.Equal(503, a.Status);
                Assert.Equal("application/problem+json", a.ContentType);
                Assert.NotNull(a.RetryAfter);
                Assert.Contains("\"retryAfterMs\":", a.Body, StringComparison.Ordinal);
                Assert.True(a.Elapsed < NoHang, $"answered after {a.Elapsed}");
            });
            Assert.Equal(CircuitState.Open, service.Pipelines.Breaker.CircuitState);
            // Once open, the circuit answers without waiting on the database at all.
            Assert.Contains("refused until it answers again", answers[^1].Body, StringComparison.Ordinal);
            var metrics = await service.Rest.GetStringAsync("/metrics");
            Assert.Contains("reason=\"circuit_open\"", metrics, StringComparison.Ordinal);
            Assert.Contains("event=\"circuit_opened\"", metrics, StringComparison.Ordinal);
        }
        finally
        {
            await service.HealAsync();
        }

        Assert.Equal(CircuitState.Closed, service.Pipelines.Breaker.CircuitState);
    }

    [Fact]
    public async Task ABlackHoledDatabaseAnswersGrpcUnavailableWithRetryPushback()
    {
        Assert.Equal(5, (await GrpcGetUserAsync(service.Grpc, User)).Status); // NOT_FOUND: the database answered
        service.Proxy.BlackHole();
        try
        {
            var answers = new List<GrpcAnswer>();
            for (var i = 0; i < 20; i++)
            {
                answers.Add(await GrpcGetUserAsync(service.Grpc, User));
            }

            Assert.All(answers, a =>
            {
                Assert.Equal(14, a.Status); // UNAVAILABLE
                Assert.True(long.TryParse(a.RetryPushbackMs, out var ms) && ms > 0, $"grpc-retry-pushback-ms was '{a.RetryPushbackMs}'");
                Assert.True(a.Elapsed < NoHang, $"answered after {a.Elapsed}");
            });
        }
        finally
        {
            await service.HealAsync();
        }
    }

    [Fact]
    public async Task ReadinessTurnsUnreadyWithinFiveSecondsOfLosingTheDatabaseAndReadyWithinFiveSecondsOfItsReturn()
    {
        Assert.Equal(HttpStatusCode.OK, await ReadinessAsync());
        service.Proxy.BlackHole();
        try
        {
            Assert.True(await ReadinessBecomesAsync(HttpStatusCode.ServiceUnavailable, TimeSpan.FromSeconds(5)), "still ready 5 s after losing the database");
            Assert.Equal(HttpStatusCode.OK, (await service.Rest.GetAsync("/healthz/live")).StatusCode);
        }
        finally
        {
            service.Proxy.Heal();
        }

        Assert.True(await ReadinessBecomesAsync(HttpStatusCode.OK, TimeSpan.FromSeconds(5)), "still unready 5 s after the database came back");
        await service.HealAsync();
    }

    private async Task<HttpStatusCode> ReadinessAsync()
    {
        using var response = await service.Rest.GetAsync("/healthz/ready");
        return response.StatusCode;
    }

    private async Task<bool> ReadinessBecomesAsync(HttpStatusCode wanted, TimeSpan within)
    {
        var until = DateTime.UtcNow + within;
        while (DateTime.UtcNow < until)
        {
            if (await ReadinessAsync() == wanted)
            {
                return true;
            }

            await Task.Delay(100);
        }

        return false;
    }
}
