using System.Net;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;
using Polly.CircuitBreaker;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.DeviceRequests;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// The database vanishes behind a black hole (connections accepted, nothing answered, as in a
/// network partition) while devices keep calling at a steady rate: no call may hang on it, readiness
/// must say so, and the service must come back by itself when the database does.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class DatabaseBlackHoleTests(ServiceBehindFaultProxy service, ITestOutputHelper output) : IClassFixture<ServiceBehindFaultProxy>
{
    private const long User = ServiceBehindFaultProxy.UnknownUser;

    /// <summary>The fixture's request budget is 200 ms: every answer, healthy or not, comes within 300 ms.</summary>
    private static readonly TimeSpan AnswerWithin = TimeSpan.FromMilliseconds(300);

    /// <summary>How long the service may take to serve again once the database is back.</summary>
    private static readonly TimeSpan RecoverWithin = TimeSpan.FromSeconds(5);

    /// <summary>One call every 20 ms, alternating REST and gRPC, spread over enough devices to stay under each one's rate limit.</summary>
    private static readonly TimeSpan Arrival = TimeSpan.FromMilliseconds(20);

    private const int Devices = 40;

    [Fact]
    public async Task UnderSteadyLoadABlackHoledDatabaseIsAnswered503WithRetryAdviceWithin300MsAndServedAgainWithinFiveSecondsOfItsReturn()
    {
        await service.HealAsync(); // warm: connections open, code paths compiled
        var blackHoleAt = TimeSpan.FromSeconds(1);
        var healAt = TimeSpan.FromSeconds(4);
        var end = healAt + RecoverWithin;
        var blackHoled = false;
        var healed = false;
        var answered = await SteadyArrivals.SendAsync(Arrival, (_, elapsed) => elapsed < end, (i, sentAt) =>
        {
            if (!blackHoled && sentAt >= blackHoleAt)
            {
                service.Proxy.BlackHole();
                blackHoled = true;
            }

            if (!healed && sentAt >= healAt)
            {
                service.Proxy.Heal();
                healed = true;
            }

            return CallAsync(i, sentAt);
        });
        await service.HealAsync();

        var during = answered.Where(c => c.SentAt >= blackHoleAt + AnswerWithin && c.SentAt + c.Elapsed < healAt).ToList();
        var lastRefused = answered.Where(c => c.Status != Call.Served).Select(c => c.SentAt + c.Elapsed).DefaultIfEmpty().Max();
        var slowest = answered.MaxBy(c => c.Elapsed);
        output.WriteLine(
            $"{answered.Length} calls; {during.Count} wholly inside the black hole; slowest {slowest.Elapsed.TotalMilliseconds:F0} ms ({slowest.Protocol} sent at {slowest.SentAt.TotalMilliseconds:F0} ms, status {slowest.Status}); " +
            $"last refusal answered {(lastRefused - healAt).TotalMilliseconds:F0} ms after the database's return");

        Assert.All(answered, c => Assert.True(c.Elapsed < AnswerWithin, $"{c.Protocol} call sent at {c.SentAt.TotalMilliseconds:F0} ms answered after {c.Elapsed.TotalMilliseconds:F0} ms with {c.Status}"));
        Assert.All(answered.Where(c => c.SentAt + c.Elapsed < blackHoleAt), c => Assert.Equal(Call.Served, c.Status));
        Assert.True(during.Count >= 100, $"only {during.Count} calls inside the black hole");
        Assert.All(during, c =>
        {
            Assert.True(c.Status == Call.Unavailable, $"{c.Protocol} call sent at {c.SentAt.TotalMilliseconds:F0} ms answered {c.Status}");
            Assert.True(c.RetryAdvice, $"{c.Protocol} call sent at {c.SentAt.TotalMilliseconds:F0} ms carried no retry advice");
        });
        Assert.True(lastRefused - healAt < RecoverWithin, $"calls were still refused {(lastRefused - healAt).TotalSeconds:F1} s after the database came back");
        Assert.Contains(answered, c => c.SentAt > lastRefused && c.Status == Call.Served);

        var metrics = await service.Rest.GetStringAsync("/metrics");
        Assert.Contains("reason=\"circuit_open\"", metrics, StringComparison.Ordinal);
        Assert.Contains("event=\"circuit_opened\"", metrics, StringComparison.Ordinal);
        Assert.Equal(CircuitState.Closed, service.Pipelines.Breaker.CircuitState);
    }

    [Fact]
    public async Task OnceTheCircuitIsOpenDeviceCallsAreRefusedWithoutWaitingOnTheDatabase()
    {
        Assert.Equal(404, (await RestGetUserAsync(service.Rest, User)).Status);
        service.Proxy.BlackHole();
        try
        {
            var answers = new List<Answer>();
            for (var i = 0; i < 10; i++)
            {
                answers.Add(await RestGetUserAsync(service.Rest, User));
            }

            Assert.Equal(CircuitState.Open, service.Pipelines.Breaker.CircuitState);
            var refused = await RestGetUserAsync(service.Rest, User);
            Assert.Equal(503, refused.Status);
            Assert.Equal("application/problem+json", refused.ContentType);
            Assert.NotNull(refused.RetryAfter);
            Assert.Contains("\"retryAfterMs\":", refused.Body, StringComparison.Ordinal);
            Assert.Contains("refused until it answers again", refused.Body, StringComparison.Ordinal);
            Assert.True(refused.Elapsed < TimeSpan.FromMilliseconds(100), $"an open circuit answered after {refused.Elapsed}");

            var grpc = await GrpcGetUserAsync(service.Grpc, User);
            Assert.Equal(14, grpc.Status); // UNAVAILABLE
            Assert.True(long.TryParse(grpc.RetryPushbackMs, out var ms) && ms > 0, $"grpc-retry-pushback-ms was '{grpc.RetryPushbackMs}'");
        }
        finally
        {
            await service.HealAsync();
        }

        Assert.Equal(CircuitState.Closed, service.Pipelines.Breaker.CircuitState);
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

    /// <summary>Even calls go over REST, odd ones over gRPC, each from one of <see cref="Devices"/> devices.</summary>
    private async Task<Call> CallAsync(int i, TimeSpan sentAt)
    {
        var device = $"steady-device-{i % Devices}";
        if (i % 2 == 0)
        {
            var rest = await RestGetUserAsync(service.Rest, User, device);
            var status = rest.Status switch { 404 => Call.Served, 503 => Call.Unavailable, _ => rest.Status };
            var advice = rest.RetryAfter is not null && rest.ContentType == "application/problem+json";
            return new Call("REST", sentAt, status, advice, rest.Elapsed);
        }

        var grpc = await GrpcGetUserAsync(service.Grpc, User, device);
        var grpcStatus = grpc.Status switch { 5 => Call.Served, 14 => Call.Unavailable, _ => 1000 + grpc.Status };
        return new Call("gRPC", sentAt, grpcStatus, long.TryParse(grpc.RetryPushbackMs, out var ms) && ms > 0, grpc.Elapsed);
    }

    /// <summary>
    /// One call's outcome: <see cref="Served"/> (the database answered: 404 / NOT_FOUND for the unknown
    /// user), <see cref="Unavailable"/> (503 / UNAVAILABLE), or anything else as the REST status or
    /// 1000 + the gRPC status.
    /// </summary>
    private readonly record struct Call(string Protocol, TimeSpan SentAt, int Status, bool RetryAdvice, TimeSpan Elapsed)
    {
        public const int Served = 1;
        public const int Unavailable = 2;
    }
}
