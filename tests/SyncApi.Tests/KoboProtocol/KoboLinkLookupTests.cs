using System.Net;
using System.Security.Cryptography;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using Npgsql;
using Polly.CircuitBreaker;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// What an unauthenticated caller presenting made-up secrets can cost: a bounded, remembered look-up,
/// outside the circuit the devices share, and 429 for an address that keeps presenting bad ones.
/// </summary>
public sealed class KoboLinkLookupTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static string MadeUpSecret() => Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)).TrimEnd('=').Replace('+', '-').Replace('/', '_');

    private static async Task<HttpResponseMessage> InitializeAsync(HttpClient client, string secret) =>
        await client.GetAsync(new Uri($"/kobo/{secret}/v1/initialization", UriKind.Relative), TestTimeout.Token);

    private SyncApiFactory Service(Dictionary<string, string?> settings) => db.ServiceWith(settings);

    [Fact]
    public async Task AFloodOfMadeUpSecretsOnASlowStoreLeavesDevicesServedAndTheCircuitClosed()
    {
        // A pool of 10 connections, and link reads that wait on a lock: every look-up the flood makes
        // holds a connection until something gives up.
        var pooled = new NpgsqlConnectionStringBuilder(db.ConnectionString) { MaxPoolSize = 10 }.ConnectionString;
        using var service = Service(new()
        {
            ["Storage:ConnectionString"] = pooled,
            ["Kobo:RefusedSecretsPerAddressBurst"] = "1000000",
        });
        var users = Enumerable.Range(0, 4).Select(_ => db.NewUser()).ToArray();
        var devices = users.Select(u => service.CreateClient().WithToken(TestTokens.For(u, "phone"))).ToArray();
        foreach (var (device, user) in devices.Zip(users))
        {
            await device.PullPageAsync(user, null);
        }

        var floodStatuses = new System.Collections.Concurrent.ConcurrentBag<HttpStatusCode>();
        var deviceStatuses = new System.Collections.Concurrent.ConcurrentBag<HttpStatusCode>();
        await using (await TableLock.TakeAsync(db, "kobo_links"))
        {
            var until = DateTime.UtcNow + TimeSpan.FromSeconds(4);
            var flood = Enumerable.Range(0, 32).Select(_ => Task.Run(async () =>
            {
                using var client = service.CreateClient();
                for (var i = 0; i < 200 && DateTime.UtcNow < until; i++)
                {
                    using var response = await InitializeAsync(client, MadeUpSecret());
                    floodStatuses.Add(response.StatusCode);
                }
            }));
            var served = devices.Zip(users).Select(pair => Task.Run(async () =>
            {
                for (var i = 0; i < 100 && DateTime.UtcNow < until; i++)
                {
                    using var response = await pair.First.GetAsync(new Uri($"/v1/users/{pair.Second}/changes", UriKind.Relative), TestTimeout.Token);
                    deviceStatuses.Add(response.StatusCode);
                    await Task.Delay(50, TestTimeout.Token);
                }
            }));
            await Task.WhenAll(flood.Concat(served));
        }

        Assert.NotEmpty(deviceStatuses);
        Assert.All(deviceStatuses, status => Assert.Equal(HttpStatusCode.OK, status));
        Assert.All(floodStatuses, status => Assert.Contains(status, new[] { HttpStatusCode.Unauthorized, HttpStatusCode.ServiceUnavailable }));
        Assert.Equal(CircuitState.Closed, service.Services.GetRequiredService<StoragePipelines>().Breaker.CircuitState);
        // At most the slots and the queue reach the store; the rest were turned away at once.
        Assert.True(
            service.Services.GetRequiredService<KoboLinkLookups>().StoreReads < floodStatuses.Count,
            $"{service.Services.GetRequiredService<KoboLinkLookups>().StoreReads} store reads for {floodStatuses.Count} requests");
        foreach (var device in devices)
        {
            device.Dispose();
        }
    }

    [Fact]
    public async Task AnUnknownSecretOrARevokedLinkPresentedAgainCostsNoStoreRead()
    {
        using var service = Service(new() { ["Kobo:RefusedSecretsPerAddressBurst"] = "1000000" });
        var lookups = service.Services.GetRequiredService<KoboLinkLookups>();
        using var kobo = service.CreateClient();
        var unknown = MadeUpSecret();
        var user = db.NewUser();
        using var phone = db.Device(user, "phone");
        var revoked = KoboLinks.SecretOf(await phone.LinkAsync(user));
        using var laptop = db.Device(user, "laptop");
        await phone.PullPageAsync(user, null);
        using (var revoke = await laptop.DeleteAsync(new Uri($"/v1/users/{user}/devices/phone", UriKind.Relative), TestTimeout.Token))
        {
            Assert.Equal(HttpStatusCode.NoContent, revoke.StatusCode);
        }

        var before = lookups.StoreReads;
        var answers = new List<(HttpStatusCode Status, string Body)>();
        for (var i = 0; i < 10; i++)
        {
            foreach (var secret in new[] { unknown, revoked })
            {
                using var response = await InitializeAsync(kobo, secret);
                answers.Add((response.StatusCode, await response.Content.ReadAsStringAsync(TestTimeout.Token)));
            }
        }

        Assert.All(answers, a => Assert.Equal(HttpStatusCode.Unauthorized, a.Status));
        // The same answer for both: nothing tells an unknown secret from a revoked link.
        Assert.Single(answers.Select(a => System.Text.Json.JsonDocument.Parse(a.Body).RootElement.GetProperty("detail").GetString()).Distinct());
        Assert.Equal(2, lookups.StoreReads - before);
    }

    [Fact]
    public async Task AnAddressThatKeepsPresentingBadSecretsGets429WithRetryAfterBeforeAnyStoreRead()
    {
        using var service = Service(new()
        {
            ["Kobo:RefusedSecretsPerAddressBurst"] = "3",
            ["Kobo:RefusedSecretsPerAddressPerMinute"] = "1",
        });
        var lookups = service.Services.GetRequiredService<KoboLinkLookups>();
        using var kobo = service.CreateClient();

        var statuses = new List<HttpStatusCode>();
        HttpResponseMessage? last = null;
        for (var i = 0; i < 6; i++)
        {
            last?.Dispose();
            last = await InitializeAsync(kobo, MadeUpSecret());
            statuses.Add(last.StatusCode);
        }

        Assert.Equal([HttpStatusCode.Unauthorized, HttpStatusCode.Unauthorized, HttpStatusCode.Unauthorized], statuses.Take(3));
        Assert.All(statuses.Skip(3), s => Assert.Equal(HttpStatusCode.TooManyRequests, s));
        Assert.Equal("application/problem+json", last!.Content.Headers.ContentType?.MediaType);
        Assert.True(last.Headers.RetryAfter?.Delta >= TimeSpan.FromSeconds(1), $"Retry-After: {last.Headers.RetryAfter}");
        Assert.Equal(3, lookups.StoreReads);
        last.Dispose();
    }

    [Fact]
    public async Task AnAddressRefusedForBadSecretsGetsItsAllowanceBackInTime()
    {
        // One refused secret back every 100 ms.
        using var service = Service(new()
        {
            ["Kobo:RefusedSecretsPerAddressBurst"] = "2",
            ["Kobo:RefusedSecretsPerAddressPerMinute"] = "600",
        });
        using var kobo = service.CreateClient();
        var refused = HttpStatusCode.Unauthorized;
        for (var i = 0; i < 10 && refused != HttpStatusCode.TooManyRequests; i++)
        {
            using var answer = await InitializeAsync(kobo, MadeUpSecret());
            refused = answer.StatusCode;
        }

        // The bucket refills on the limiter's own heartbeat: a secret is looked up again well within
        // the bound, however busy the machine.
        var clock = System.Diagnostics.Stopwatch.StartNew();
        var again = HttpStatusCode.TooManyRequests;
        while (again == HttpStatusCode.TooManyRequests && clock.Elapsed < TimeSpan.FromSeconds(20))
        {
            await Task.Delay(TimeSpan.FromMilliseconds(200), TestTimeout.Token);
            using var answer = await InitializeAsync(kobo, MadeUpSecret());
            again = answer.StatusCode;
        }

        Assert.Equal(HttpStatusCode.TooManyRequests, refused);
        Assert.Equal(HttpStatusCode.Unauthorized, again);
    }

    [Theory]
    [InlineData("192.0.2.7", "192.0.2.7")]
    [InlineData("::ffff:192.0.2.7", "192.0.2.7")]
    [InlineData("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64")]
    public void RefusedSecretsAreCountedPerIPv4AddressAndPerIPv6Slash64(string address, string key) =>
        Assert.Equal(key, KoboLinkLookups.AddressKey(IPAddress.Parse(address)));
}
