using System.Net;
using System.Net.Sockets;
using Kobo.Sync.Domain.Reading;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Grpc.Health;
using Kobo.Sync.SyncApi.Grpc.Wire.Client;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Support;

/// <summary>
/// The service's own composition (service defaults, <c>AddSyncGrpc</c>, <c>MapSyncGrpc</c>) on a
/// real Kestrel with its REST and gRPC listeners on free loopback ports; the read store and the
/// token handler are test doubles, so this exercises the gRPC adapter and not storage or JWTs.
/// </summary>
public sealed class SyncGrpcTestHost : IAsyncDisposable
{
    private readonly WebApplication _app;

    private SyncGrpcTestHost(WebApplication app, Uri grpc, Uri rest, FakeDeviceReadStore store)
    {
        _app = app;
        GrpcAddress = grpc;
        RestAddress = rest;
        Store = store;
        Http = WireTestServer.NewHttpClient(grpc);
        Client = new GrpcUnaryClient(Http);
    }

    public Uri GrpcAddress { get; }

    public Uri RestAddress { get; }

    public string Target => $"{GrpcAddress.Host}:{GrpcAddress.Port}";

    public FakeDeviceReadStore Store { get; }

    public HttpClient Http { get; }

    public GrpcUnaryClient Client { get; }

    public static async Task<SyncGrpcTestHost> StartAsync()
    {
        var grpc = new Uri($"http://127.0.0.1:{FreePort()}");
        var rest = new Uri($"http://127.0.0.1:{FreePort()}");
        var store = new FakeDeviceReadStore();

        var builder = WebApplication.CreateBuilder(new WebApplicationOptions { EnvironmentName = "Production" });
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Endpoints:Grpc"] = grpc.ToString().TrimEnd('/'),
            ["Endpoints:Rest"] = rest.ToString().TrimEnd('/'),
            ["Serilog:MinimumLevel:Default"] = "Warning",
        });
        builder.AddServiceDefaults();
        builder.AddSyncGrpc();
        builder.Services.AddSingleton<IDeviceReadStore>(store);
        builder.Services.AddSingleton(new PageCursors(Enumerable.Range(1, 32).Select(i => (byte)i).ToArray()));
        builder.Services.AddSingleton<DeviceReads>();
        builder.Services.AddAuthentication()
            .AddScheme<AuthenticationSchemeOptions, TestDeviceTokenHandler>(DeviceAuthentication.Scheme, null);
        builder.Services.AddHealthChecks().AddCheck(
            "store", () => store.Ready ? HealthCheckResult.Healthy() : HealthCheckResult.Unhealthy("store down"),
            tags: [GrpcHealthService.ReadyTag]);

        var app = builder.Build();
        app.UseServiceDefaults();
        app.MapServiceDefaults();
        app.MapSyncGrpc();
        await app.StartAsync(Kobo.Sync.SyncApi.Tests.Support.TestTimeout.Token);
        return new SyncGrpcTestHost(app, grpc, rest, store);
    }

    public async ValueTask DisposeAsync()
    {
        Http.Dispose();
        await _app.StopAsync(Kobo.Sync.SyncApi.Tests.Support.TestTimeout.Token);
        await _app.DisposeAsync();
    }

    /// <summary>A port the OS just gave out and took back; another process could take it, rarely.</summary>
    public static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
