using System.Net;
using System.Security.Cryptography;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using Microsoft.Extensions.DependencyInjection;
using Npgsql;
using Polly.CircuitBreaker;

namespace Kobo.Sync.SyncApi.Tests.KoboProtocol;

/// <summary>
/// What an unauthenticated caller presenting made-up secrets can cost: no look-up at all for a secret the
/// service never issued, a bounded, remembered look-up for one it did, outside the circuit the devices
/// share, and 429 for an address that keeps presenting bad ones; never a refusal of a real link.
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

        // Tagged with the store's key, as a link purged long ago would be: only such a secret is looked up.
        var unknownIssued = KoboLinkSecrets.New(await LinkKeyAsync());
        var before = lookups.StoreReads;
        var answers = new List<(HttpStatusCode Status, string Body)>();
        for (var i = 0; i < 10; i++)
        {
            foreach (var secret in new[] { unknown, unknownIssued, revoked })
            {
                using var response = await InitializeAsync(kobo, secret);
                answers.Add((response.StatusCode, await response.Content.ReadAsStringAsync(TestTimeout.Token)));
            }
        }

        Assert.All(answers, a => Assert.Equal(HttpStatusCode.Unauthorized, a.Status));
        // The same answer for both: nothing tells an unknown secret from a revoked link.
        Assert.Single(answers.Select(a => System.Text.Json.JsonDocument.Parse(a.Body).RootElement.GetProperty("detail").GetString()).Distinct());
        // One read for each issued secret, the first time; none ever for the made-up one.
        Assert.Equal(2, lookups.StoreReads - before);
    }

    [Fact]
    public async Task MadeUpSecretsFromTheSameAddressNeverKeepRealLinksFromBeingLookedUp()
    {
        // In process every caller has the same (no) address, as every device has behind a balancer that
        // forwards nothing, or behind one NAT.
        using var service = Service(new()
        {
            ["Kobo:RefusedSecretsPerAddressBurst"] = "3",
            ["Kobo:RefusedSecretsPerAddressPerMinute"] = "1",
        });
        var lookups = service.Services.GetRequiredService<KoboLinkLookups>();
        var user = db.NewUser();
        var secrets = new List<string>();
        foreach (var name in new[] { "phone", "tablet" })
        {
            using var device = service.CreateClient().WithToken(TestTokens.For(user, name));
            for (var i = 0; i < 4; i++)
            {
                secrets.Add(KoboLinks.SecretOf(await device.LinkAsync(user)));
            }
        }

        using var attacker = service.CreateClient();
        using var kobo = service.CreateClient();
        var flood = new List<HttpStatusCode>();
        var served = new List<HttpStatusCode>();
        foreach (var secret in secrets)
        {
            for (var i = 0; i < 5; i++)
            {
                using var bad = await InitializeAsync(attacker, MadeUpSecret());
                flood.Add(bad.StatusCode);
            }

            // Never used before, so in no cache: each one is a look-up while the address is over its allowance.
            using var real = await InitializeAsync(kobo, secret);
            served.Add(real.StatusCode);
        }

        Assert.All(served, status => Assert.Equal(HttpStatusCode.OK, status));
        Assert.Contains(HttpStatusCode.TooManyRequests, flood);
        Assert.All(flood, status => Assert.Contains(status, new[] { HttpStatusCode.Unauthorized, HttpStatusCode.TooManyRequests }));
        // Only the real links were read; 40 made-up secrets cost nothing of the store.
        Assert.Equal(secrets.Count, lookups.StoreReads);
    }

    [Fact]
    public async Task MadeUpSecretsFromThousandsOfAddressesTakeNoLookUpSlotFromRealLinks()
    {
        // One slot, no queue: a single made-up secret in a slot would turn a real link away with 503.
        using var host = new SyncGrpcTestHost(db.ConnectionString, settings: new Dictionary<string, string?>
        {
            ["Proxies:TrustedNetworks:0"] = "127.0.0.1",
            ["Kobo:LinkLookupConcurrency"] = "1",
            ["Kobo:LinkLookupQueue"] = "0",
        });
        var lookups = host.Services.GetRequiredService<KoboLinkLookups>();
        var user = db.NewUser();
        var secrets = new List<string>();
        foreach (var name in new[] { "phone", "tablet" })
        {
            using var device = DeviceTraffic.Rest(host, user);
            device.DefaultRequestHeaders.Authorization = new("Bearer", TestTokens.For(user, name));
            for (var i = 0; i < 4; i++)
            {
                secrets.Add(KoboLinks.SecretOf(await device.LinkAsync(user)));
            }
        }

        var flooding = true;
        var sent = 0;
        var flood = Enumerable.Range(0, 16).Select(worker => Task.Run(async () =>
        {
            using var client = DeviceTraffic.Rest(host, null);
            var statuses = new List<HttpStatusCode>();
            for (var i = 0; i < 2_000 && Volatile.Read(ref flooding); i++)
            {
                using var request = new HttpRequestMessage(HttpMethod.Get, $"/kobo/{MadeUpSecret()}/v1/initialization");
                request.Headers.Add("X-Forwarded-For", $"10.{worker}.{i / 256 % 256}.{i % 256}");
                using var response = await client.SendAsync(request, TestTimeout.Token);
                statuses.Add(response.StatusCode);
                Interlocked.Increment(ref sent);
            }

            return statuses;
        })).ToArray();
        while (Volatile.Read(ref sent) < 200)
        {
            await Task.Delay(20, TestTimeout.Token);
        }

        var served = new List<HttpStatusCode>();
        using (var kobo = DeviceTraffic.Rest(host, null))
        {
            foreach (var secret in secrets)
            {
                using var real = await InitializeAsync(kobo, secret);
                served.Add(real.StatusCode);
            }
        }

        Volatile.Write(ref flooding, false);
        var floodStatuses = (await Task.WhenAll(flood)).SelectMany(s => s).ToList();

        Assert.All(served, status => Assert.Equal(HttpStatusCode.OK, status));
        Assert.NotEmpty(floodStatuses);
        Assert.All(floodStatuses, status => Assert.Equal(HttpStatusCode.Unauthorized, status));
        Assert.Equal(secrets.Count, lookups.StoreReads);
    }

    [Fact]
    public async Task TheAllowanceOfRefusedSecretsIsTheForwardedClientsBehindATrustedBalancer()
    {
        using var host = new SyncGrpcTestHost(db.ConnectionString, settings: new Dictionary<string, string?>
        {
            ["Proxies:TrustedNetworks:0"] = "127.0.0.0/8",
            ["Kobo:RefusedSecretsPerAddressBurst"] = "3",
            ["Kobo:RefusedSecretsPerAddressPerMinute"] = "1",
        });

        // The balancer appends the address it saw; a client's own X-Forwarded-For entries come before it.
        Assert.Equal(
            [HttpStatusCode.Unauthorized, HttpStatusCode.Unauthorized, HttpStatusCode.Unauthorized, HttpStatusCode.TooManyRequests],
            await PresentFromAsync(host, "198.51.100.1, 203.0.113.7", 4));
        Assert.Equal([HttpStatusCode.Unauthorized], await PresentFromAsync(host, "203.0.113.7, 198.51.100.9", 1));
    }

    [Fact]
    public async Task AForwardedAddressFromAPeerThatIsNotATrustedBalancerIsIgnored()
    {
        using var host = new SyncGrpcTestHost(db.ConnectionString, settings: new Dictionary<string, string?>
        {
            ["Kobo:RefusedSecretsPerAddressBurst"] = "3",
            ["Kobo:RefusedSecretsPerAddressPerMinute"] = "1",
        });

        Assert.Equal(
            [HttpStatusCode.Unauthorized, HttpStatusCode.Unauthorized, HttpStatusCode.Unauthorized],
            await PresentFromAsync(host, "203.0.113.7", 3));
        // A new address in the header does not buy a new allowance: the connection's own address counts.
        Assert.Equal([HttpStatusCode.TooManyRequests], await PresentFromAsync(host, "198.51.100.9", 1));
    }

    private static async Task<List<HttpStatusCode>> PresentFromAsync(SyncGrpcTestHost host, string forwardedFor, int count)
    {
        using var client = DeviceTraffic.Rest(host, null);
        var statuses = new List<HttpStatusCode>();
        for (var i = 0; i < count; i++)
        {
            using var request = new HttpRequestMessage(HttpMethod.Get, $"/kobo/{MadeUpSecret()}/v1/initialization");
            request.Headers.Add("X-Forwarded-For", forwardedFor);
            using var response = await client.SendAsync(request, TestTimeout.Token);
            statuses.Add(response.StatusCode);
        }

        return statuses;
    }

    private async Task<byte[]> LinkKeyAsync()
    {
        await using var command = db.DataSource.CreateCommand("SELECT secret_key FROM kobo_link_keys");
        return (byte[])(await command.ExecuteScalarAsync(TestTimeout.Token))!;
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
        // Secrets the service never issued: none was worth a read.
        Assert.Equal(0, lookups.StoreReads);
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
        Assert.Equal(key, SecretLookupLimits.AddressKey(IPAddress.Parse(address)));
}
