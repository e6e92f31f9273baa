using System.Net;
using System.Net.Sockets;
using System.Security.Cryptography;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Rolling;

/// <summary>
/// Kobo e-readers behind the deployment's balancer (HAProxy here, as the ALB there): the instances know
/// each client by the address the balancer forwards, so one client presenting made-up secrets is limited
/// on its own, and no real link is ever refused for what somebody else presented. Clients come from
/// addresses of their own on the loopback network (127.0.0.2, 127.0.0.3).
/// </summary>
[Collection(nameof(RollingCollection))]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class KoboLinksBehindTheBalancerTests(HaproxyFront front) : IClassFixture<HaproxyFront>
{
    private const string Attacker = "127.0.0.2";
    private const string Neighbour = "127.0.0.3";

    [HaproxyFact]
    public async Task AClientPresentingMadeUpSecretsIsLimitedAloneAndRealLinksAreNeverRefused()
    {
        var secrets = new List<string>();
        foreach (var device in new[] { "phone", "tablet" })
        {
            using var client = new HttpClient { BaseAddress = front.Front }.WithToken(TestTokens.For(3, device));
            for (var i = 0; i < 4; i++)
            {
                secrets.Add(KoboLinks.SecretOf(await client.LinkAsync(3)));
            }
        }

        using var attacker = From(Attacker);
        var flood = new List<HttpStatusCode>();
        var real = new List<HttpStatusCode>();
        foreach (var secret in secrets)
        {
            for (var i = 0; i < 5; i++)
            {
                // An address of its own choosing in the header buys it nothing: the balancer's entry is last.
                flood.Add(await InitializeAsync(attacker, MadeUpSecret(), forwardedFor: $"203.0.113.{i}"));
            }

            // Never used, so looked up, from the attacker's own address and from the balancer's alike.
            real.Add(await InitializeAsync(attacker, secret));
        }

        using var neighbour = From(Neighbour);
        var mistyped = await InitializeAsync(neighbour, MadeUpSecret());

        Assert.All(real, status => Assert.Equal(HttpStatusCode.OK, status));
        Assert.Contains(HttpStatusCode.TooManyRequests, flood);
        Assert.Equal(HttpStatusCode.Unauthorized, mistyped);
    }

    private static string MadeUpSecret() => Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)).TrimEnd('=').Replace('+', '-').Replace('/', '_');

    private static async Task<HttpStatusCode> InitializeAsync(HttpClient client, string secret, string? forwardedFor = null)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, $"/kobo/{secret}/v1/initialization");
        if (forwardedFor is not null)
        {
            request.Headers.Add("X-Forwarded-For", forwardedFor);
        }

        using var response = await client.SendAsync(request, TestTimeout.Token);
        return response.StatusCode;
    }

    /// <summary>A client whose connections come from <paramref name="local"/>, a loopback address of its own.</summary>
    private HttpClient From(string local) => new(new SocketsHttpHandler
    {
        ConnectCallback = async (context, cancellationToken) =>
        {
            var socket = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
            try
            {
                socket.Bind(new IPEndPoint(IPAddress.Parse(local), 0));
                await socket.ConnectAsync(context.DnsEndPoint, cancellationToken);
                return new NetworkStream(socket, ownsSocket: true);
            }
            catch
            {
                socket.Dispose();
                throw;
            }
        },
    })
    {
        BaseAddress = front.Front,
    };
}
