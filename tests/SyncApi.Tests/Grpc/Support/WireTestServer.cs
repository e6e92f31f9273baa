using System.Net;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Grpc.Wire.Client;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Support;

/// <summary>
/// A real Kestrel on 127.0.0.1 with one HTTP/2-only (h2c) listener on a free port, serving only
/// what the test maps with the generic gRPC binding: nothing of Kobo.Sync.
/// </summary>
public sealed class WireTestServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private WireTestServer(WebApplication app, Uri address)
    {
        _app = app;
        Address = address;
        Http = NewHttpClient(address);
        Client = new GrpcUnaryClient(Http);
    }

    /// <summary>The gRPC listener, e.g. http://127.0.0.1:41234.</summary>
    public Uri Address { get; }

    /// <summary>host:port, as the interop clients take it.</summary>
    public string Target => $"{Address.Host}:{Address.Port}";

    public HttpClient Http { get; }

    public GrpcUnaryClient Client { get; }

    public IServiceProvider Services => _app.Services;

    public static async Task<WireTestServer> StartAsync(
        Action<IEndpointRouteBuilder> map, Action<IServiceCollection>? services = null)
    {
        var builder = WebApplication.CreateSlimBuilder(new WebApplicationOptions { EnvironmentName = "Production" });
        builder.Logging.ClearProviders();
        builder.WebHost.ConfigureKestrel(kestrel =>
            kestrel.Listen(IPAddress.Loopback, 0, listen => listen.Protocols = HttpProtocols.Http2));
        builder.Services.AddRouting();
        builder.Services.AddHealthChecks();
        builder.Services.AddGrpcWire();
        services?.Invoke(builder.Services);

        var app = builder.Build();
        map(app);
        await app.StartAsync(TestTimeoutToken());
        var address = app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.Single();
        return new WireTestServer(app, new Uri(address));
    }

    /// <summary>An HttpClient that speaks h2c with prior knowledge to <paramref name="address"/>.</summary>
    public static HttpClient NewHttpClient(Uri address) => new(new SocketsHttpHandler())
    {
        BaseAddress = address,
        DefaultRequestVersion = HttpVersion.Version20,
        DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
        Timeout = TimeSpan.FromSeconds(30),
    };

    public async ValueTask DisposeAsync()
    {
        Http.Dispose();
        await _app.StopAsync(TestTimeoutToken());
        await _app.DisposeAsync();
    }

    private static CancellationToken TestTimeoutToken() => Kobo.Sync.SyncApi.Tests.Support.TestTimeout.Token;
}
