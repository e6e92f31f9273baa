using System.Collections.Concurrent;
using System.Diagnostics;
using System.Net;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Kobo.Sync.DeviceSimulator.Tests.Support;

/// <summary>
/// A gRPC server (h2c, on a free loopback port) whose <c>SyncService/GetUser</c> answers however a
/// test says, and notes when each call arrived and the <c>authorization</c> metadata it carried.
/// </summary>
public sealed class StubGrpcServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private StubGrpcServer(Func<int, ServerCallContext, User> answer)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        Address = new Uri($"http://127.0.0.1:{LoopbackPorts.Free()}");
        builder.WebHost.ConfigureKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, Address.Port, listen => listen.Protocols = HttpProtocols.Http2));
        builder.Services.AddGrpc();
        builder.Services.AddSingleton(new StubSyncService(this, answer));
        _app = builder.Build();
        _app.MapGrpcService<StubSyncService>();
    }

    public Uri Address { get; }

    /// <summary>When each call arrived, from the server's start.</summary>
    public ConcurrentQueue<TimeSpan> Arrivals { get; } = new();

    /// <summary>Each call's <c>authorization</c> metadata, or null when it had none.</summary>
    public ConcurrentQueue<string?> Authorizations { get; } = new();

    private Stopwatch Clock { get; } = Stopwatch.StartNew();

    /// <param name="answer">Given the call's number (from 1): the user to return, or throw an <see cref="RpcException"/>.</param>
    public static async Task<StubGrpcServer> StartAsync(Func<int, ServerCallContext, User> answer)
    {
        var server = new StubGrpcServer(answer);
        await server._app.StartAsync();
        return server;
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }

    private sealed class StubSyncService(StubGrpcServer server, Func<int, ServerCallContext, User> answer) : SyncService.SyncServiceBase
    {
        public override Task<User> GetUser(GetUserRequest request, ServerCallContext context)
        {
            server.Arrivals.Enqueue(server.Clock.Elapsed);
            server.Authorizations.Enqueue(context.RequestHeaders.GetValue("authorization"));
            return Task.FromResult(answer(server.Arrivals.Count, context));
        }
    }
}
