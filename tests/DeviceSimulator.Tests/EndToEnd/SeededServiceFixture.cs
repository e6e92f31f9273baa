using Kobo.Sync.DeviceSimulator.Cli;
using Kobo.Sync.DeviceSimulator.Seeding;
using Kobo.Sync.DeviceSimulator.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.DeviceSimulator.Tests.EndToEnd;

/// <summary>
/// A database seeded by the simulator's own seed (small scale), and the real service in process on
/// real Kestrel sockets in front of it: the target of the end-to-end runs.
/// </summary>
public sealed class SeededServiceFixture : IAsyncLifetime
{
    private readonly PostgresDatabase _database = new();
    private SyncApiFactory? _service;

    public string ConnectionString => _database.ConnectionString;

    public Uri Rest { get; } = new($"http://127.0.0.1:{LoopbackPorts.Free()}");

    public Uri Grpc { get; } = new($"http://127.0.0.1:{LoopbackPorts.Free()}");

    public string HeaviestUsers { get; } = Path.Combine(Path.GetTempPath(), $"kobo-sim-heaviest-{Guid.NewGuid():N}.tsv");

    /// <summary>The smoke profile through the simulator's command line against this service, with <paramref name="extra"/> options.</summary>
    public Task<int> RunSmokeAsync(params string[] extra) =>
        SimulatorCommands.Build().Parse(
        [
            "run", "--profile", RepositoryRoot.Profile("smoke"),
            "--rest", Rest.ToString(), "--grpc", Grpc.ToString(), "--postgres", ConnectionString,
            "--signing-key", TestTokens.SigningKey, "--heaviest", HeaviestUsers,
            .. extra,
        ]).InvokeAsync();

    public async Task InitializeAsync()
    {
        await _database.InitializeAsync();
        var plan = SeedPlan.Create(SeedScale.FromUsers(3_000, seed: 5));
        await new Seeder(_database.DataSource).SeedAsync(plan, new SeedOptions { Writers = 2 }, new SeedProgress(plan), CancellationToken.None);
        HeaviestUsersFile.Write(HeaviestUsers, plan, HeaviestUsersFile.Select(plan, top: 1_000));

        _service = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = Rest.ToString().TrimEnd('/'),
            ["Endpoints:Grpc"] = Grpc.ToString().TrimEnd('/'),
            ["Storage:ConnectionString"] = _database.ConnectionString,
        });
        _service.UseKestrel();
        _service.StartServer();
    }

    public async Task DisposeAsync()
    {
        if (_service is not null)
        {
            await _service.DisposeAsync();
        }

        File.Delete(HeaviestUsers);
        await _database.DisposeAsync();
    }
}
