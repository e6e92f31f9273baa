using System.Net;
using Grpc.Net.Client;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Scenarios;
using Kobo.Sync.DeviceSimulator.Scenarios.Day;
using Kobo.Sync.DeviceSimulator.Scenarios.Grpc;
using Kobo.Sync.DeviceSimulator.Scenarios.Live;
using Kobo.Sync.DeviceSimulator.Scenarios.Postgres;
using Kobo.Sync.DeviceSimulator.Scenarios.Rest;
using Kobo.Sync.DeviceSimulator.Scenarios.Sync;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Storage;
using Kobo.Sync.Storage.Coalescing;
using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.Storage.Stores;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Engine;

/// <summary>
/// Where a run's scenarios send their reads. Live scenarios' waiting devices wait at
/// <paramref name="WaitRest"/> (REST long-polls) and <paramref name="WaitGrpc"/> (WatchChanges), by
/// default the same addresses as everything else: another instance on the same database there makes
/// each wake cross instances through PostgreSQL.
/// </summary>
public sealed record Endpoints(Uri? Rest, Uri? Grpc, string? Postgres, Uri? WaitRest = null, Uri? WaitGrpc = null);

/// <summary>
/// Builds each scenario of a profile with the client it needs: one REST client, one gRPC client and
/// one PostgreSQL data source per run, shared by all devices, as a device fleet shares a network.
/// </summary>
public sealed class ScenarioCatalog : IAsyncDisposable
{
    private readonly ReadSampling _sampling;
    private readonly DeviceTokens _tokens;
    private readonly Endpoints _endpoints;
    private readonly int _connections;
    private readonly DeviceBehaviour _device;
    private readonly int _seed;
    private HttpClient? _rest;
    private HttpClient? _restWaiters;
    private GrpcChannel? _grpc;
    private GrpcChannel? _grpcWatchers;
    private LiveSlot _nextLive;
    private readonly List<LiveScenario> _live = [];
    private SemaphoreSlim? _catchingUp;
    private NpgsqlDataSource? _postgres;
    private IDeviceReadStore? _store;

    private readonly DayRun? _day;

    public ScenarioCatalog(
        ReadSampling sampling, DeviceTokens tokens, Endpoints endpoints, int connections,
        DeviceBehaviour? device = null, int seed = 1, DayRun? day = null)
    {
        _day = day;
        _device = device ?? new DeviceBehaviour();
        _seed = seed;
        _sampling = sampling;
        _tokens = tokens;
        _endpoints = endpoints;
        _connections = connections;
    }

    /// <summary>
    /// The scenario for a read (or device sync) over a transport; throws naming the missing option when its endpoint was not given.
    /// </summary>
    public IReadScenario Create(ScenarioLoad load) => (load.Read, load.Transport) switch
    {
        (ReadKind.HighlightsByUser, Transport.Rest) => new RestHighlightsByUser(_sampling, RestClient()),
        (ReadKind.HighlightsByBook, Transport.Rest) => new RestHighlightsByBook(_sampling, RestClient()),
        (ReadKind.UserById, Transport.Rest) => new RestUserById(_sampling, RestClient()),
        (ReadKind.HighlightsByUser, Transport.Grpc) => new GrpcHighlightsByUser(_sampling, GrpcClient()),
        (ReadKind.HighlightsByBook, Transport.Grpc) => new GrpcHighlightsByBook(_sampling, GrpcClient()),
        (ReadKind.UserById, Transport.Grpc) => new GrpcUserById(_sampling, GrpcClient()),
        (ReadKind.HighlightsByUser, Transport.Postgres) => new PostgresHighlightsByUser(_sampling, Store()),
        (ReadKind.HighlightsByBook, Transport.Postgres) => new PostgresHighlightsByBook(_sampling, Store()),
        (ReadKind.UserById, Transport.Postgres) => new PostgresUserById(_sampling, Store()),
        (ReadKind.SyncSession, Transport.Rest) => new DeviceSyncSessionScenario(_sampling, RestSync(), load, _device, _seed),
        (ReadKind.SyncSession, Transport.Grpc) => new DeviceSyncSessionScenario(
            _sampling, new GrpcSyncClient(GrpcClient()), load, _device, _seed),
        (ReadKind.FirstSyncStorm, Transport.Rest) => new FirstSyncStormScenario(_sampling, RestSync(), load, _device),
        (ReadKind.FirstSyncStorm, Transport.Grpc) => new FirstSyncStormScenario(_sampling, new GrpcSyncClient(GrpcClient()), load, _device),
        (ReadKind.Day, Transport.Rest) => Day(load, RestSync()),
        (ReadKind.Day, Transport.Grpc) => Day(load, new GrpcSyncClient(GrpcClient())),
        (ReadKind.Live, Transport.Rest) => Live(load, RestSync(), new RestWaiter(RestWaiterHttp(), _tokens)),
        (ReadKind.Live, Transport.Grpc) => Live(
            load, new GrpcSyncClient(GrpcClient()), new GrpcWatcher(new SyncService.SyncServiceClient(GrpcWatchChannel()), _tokens)),
        _ => throw new ArgumentOutOfRangeException(nameof(load), load.Name, "No such scenario."),
    };

    public async ValueTask DisposeAsync()
    {
        _rest?.Dispose();
        _restWaiters?.Dispose();
        _grpc?.Dispose();
        _grpcWatchers?.Dispose();
        _live.ForEach(l => l.Dispose());
        _catchingUp?.Dispose();
        if (_postgres is not null)
        {
            await _postgres.DisposeAsync();
        }
    }

    private RestDeviceClient RestClient() => new(RestHttp(), _tokens);

    private RestSyncClient RestSync() => new(RestHttp(), _tokens);

    private HttpClient RestHttp()
    {
        var address = _endpoints.Rest ?? throw new MissingEndpointException("--rest");
        _rest ??= new HttpClient(
            new SocketsHttpHandler { MaxConnectionsPerServer = _connections, AutomaticDecompression = DecompressionMethods.None })
        {
            BaseAddress = address,
            Timeout = Timeout.InfiniteTimeSpan, // the device's own timeout applies
        };
        return _rest;
    }

    private DeviceDayScenario Day(ScenarioLoad load, ISyncClient client) =>
        new(_sampling, client, load, _device, _day?.Tokens ?? throw new MissingEndpointException("--cursor-key"), _day.Ledger, _seed);

    /// <summary>Each live scenario takes the devices and users after the previous one's, so none share a device or a user.</summary>
    private LiveScenario Live(ScenarioLoad load, ISyncClient pushes, IWaiterTransport waiters)
    {
        _catchingUp ??= new SemaphoreSlim(_connections, _connections);
        var scenario = new LiveScenario(_sampling, pushes, waiters, load, _device, _seed, _nextLive, _catchingUp);
        _nextLive = new LiveSlot(_nextLive.FirstDevice + LiveScenario.DevicesNeeded(load), _nextLive.FirstUser + load.WaitingUsers);
        _live.Add(scenario);
        return scenario;
    }

    /// <summary>
    /// REST waiting devices each hold a connection for as long as they wait: a client of their own, with no cap on connections.
    /// </summary>
    private HttpClient RestWaiterHttp()
    {
        var address = _endpoints.WaitRest ?? _endpoints.Rest ?? throw new MissingEndpointException("--rest");
        _restWaiters ??= new HttpClient(new SocketsHttpHandler
        {
            MaxConnectionsPerServer = int.MaxValue,
            PooledConnectionIdleTimeout = TimeSpan.FromMinutes(2), // longer than the longest wait
            AutomaticDecompression = DecompressionMethods.None,
        })
        {
            BaseAddress = address,
            Timeout = Timeout.InfiniteTimeSpan, // each wait has its own
        };
        return _restWaiters;
    }

    /// <summary>WatchChanges streams on a channel of their own, so the pushes' calls never queue behind full connections.</summary>
    private GrpcChannel GrpcWatchChannel() =>
        _grpcWatchers ??= GrpcChannel.ForAddress(
            _endpoints.WaitGrpc ?? _endpoints.Grpc ?? throw new MissingEndpointException("--grpc"), ChannelOptions());

    private GrpcDeviceClient GrpcClient()
    {
        var address = _endpoints.Grpc ?? throw new MissingEndpointException("--grpc");
        _grpc ??= GrpcChannel.ForAddress(address, ChannelOptions());
        return new GrpcDeviceClient(new SyncService.SyncServiceClient(_grpc), _tokens);
    }

    private static GrpcChannelOptions ChannelOptions() => new()
    {
        // h2c on an http:// address; streams spread over more connections once one is full.
        HttpHandler = new SocketsHttpHandler
        {
            EnableMultipleHttp2Connections = true,
            PooledConnectionIdleTimeout = Timeout.InfiniteTimeSpan,
            KeepAlivePingDelay = TimeSpan.FromSeconds(60),
            KeepAlivePingTimeout = TimeSpan.FromSeconds(30),
            AutomaticDecompression = DecompressionMethods.None,
        },
        DisposeHttpClient = true,
        // No service config, so no retry or hedging policy: the device's retry pipeline is the
        // only retry layer, and a pushback trailer reaches it untouched.
        ServiceConfig = null,
        // A call cut off by the device's own timeout surfaces as OperationCanceledException, which
        // the retry pipeline's timeout turns into a retried timeout, as it does for REST (by
        // default Grpc.Net.Client throws RpcException(Cancelled), and the sync would fail at once).
        ThrowOperationCanceledOnCancellation = true,
    };

    private IDeviceReadStore Store()
    {
        var connectionString = _endpoints.Postgres ?? throw new MissingEndpointException("--postgres");
        _postgres ??= StorageDataSource.Create(connectionString);
        // The service's own read path with its default settings (statement coalescing, storage
        // pipelines), so the baseline differs from the service by exactly the service's front.
        return _store ??= new ResilientDeviceReadStore(
            new PostgresDeviceReadStore(new ReadCoalescer(_postgres, new ReadCoalescingOptions())),
            new StoragePipelines(
                Options.Create(new ResilienceOptions()),
                IResilienceEvents.Unreported,
                TimeProvider.System));
    }
}

public sealed class MissingEndpointException(string option)
    : Exception($"The profile has a scenario that needs {option}; give it on the command line.");
