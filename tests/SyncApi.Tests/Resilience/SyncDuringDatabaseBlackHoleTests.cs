using System.Net;
using System.Net.Http.Headers;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support.Faults;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Device sync behind a black-holed database: push, pull and the device list answer 503 with
/// Retry-After within the budget, like the reads, never a 500 or a hang. Its own service, so the
/// connections these calls leave behind do not disturb the read tests' circuit.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class SyncDuringDatabaseBlackHoleTests(ServiceBehindFaultProxy service) : IClassFixture<ServiceBehindFaultProxy>
{
    private const long User = ServiceBehindFaultProxy.UnknownUser;

    /// <summary>The fixture's request budget is 200 ms: every answer comes within 300 ms.</summary>
    private static readonly TimeSpan AnswerWithin = TimeSpan.FromMilliseconds(300);

    [Fact]
    public async Task DeviceSyncCallsWithTheDatabaseBlackHoledGet503WithRetryAfterNot500()
    {
        using var device = new HttpClient { BaseAddress = service.RestAddress, Timeout = TimeSpan.FromSeconds(20) };
        device.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", TestTokens.For(User));
        var calls = new Func<Task<HttpResponseMessage>>[]
        {
            () => device.PushRawAsync(User, SyncCalls.Upsert("k1", "a highlight", DateTimeOffset.UtcNow)),
            () => device.GetAsync($"/v1/users/{User}/changes", TestTimeout.Token),
            () => device.GetAsync($"/v1/users/{User}/devices", TestTimeout.Token),
            () => device.DeleteAsync($"/v1/users/{User}/devices/other-device", TestTimeout.Token),
        };
        foreach (var call in calls)
        {
            using var _ = await call(); // warm: the first call of each kind compiles its code path
        }

        service.Proxy.BlackHole();
        try
        {
            foreach (var call in calls)
            {
                var clock = System.Diagnostics.Stopwatch.StartNew();
                using var response = await call();
                var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);

                Assert.True(response.StatusCode == HttpStatusCode.ServiceUnavailable, $"{(int)response.StatusCode} {body}");
                Assert.NotNull(response.Headers.RetryAfter);
                Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
                Assert.True(clock.Elapsed < AnswerWithin, $"answered after {clock.Elapsed}");
            }
        }
        finally
        {
            await service.HealAsync();
        }
    }
}
