using System.Collections.Concurrent;
using System.Net;
using Kobo.Sync.DevServer.Demo;
using Kobo.Sync.DevServer.Embedded;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Diagnostics.HealthChecks;
using Microsoft.AspNetCore.TestHost;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Storage;

/// <summary>AddStorage in a host of its own, as Program.cs will use it.</summary>
public sealed class StorageRegistrationTests
{
    [Theory]
    [InlineData("Development", null)] // dotnet run
    [InlineData("Production", "true")] // asked for explicitly
    public async Task WithNoConnectionStringTheServiceStartsItsOwnServerInDevelopmentOrWhenEnabledMigratesSeedsAndStopsItOnShutdown(
        string environment, string? enabled)
    {
        var port = LoopbackPorts.Free();
        var scratch = PostgresServer.NewScratchDirectory();
        var dataDirectory = Path.Combine(scratch, "data", "postgres");
        var logs = new LogLines();
        int pid;
        await using (var app = await StartAsync(
            logs,
            new()
            {
                ["Storage:Embedded:DataDirectory"] = dataDirectory,
                ["Storage:Embedded:Port"] = port.ToString(System.Globalization.CultureInfo.InvariantCulture),
                ["Storage:Embedded:Enabled"] = enabled,
            },
            environment))
        {
            var line = Assert.Single(logs.Lines, l => l.StartsWith("Storage: ", StringComparison.Ordinal));
            Assert.Equal($"Storage: Host=127.0.0.1;Port={port};Database=kobo_sync;Username=kobo", line);
            Assert.DoesNotContain(logs.Lines, l => l.Contains("Password", StringComparison.OrdinalIgnoreCase));
            Assert.Single(logs.Lines, l => l.StartsWith("Seeded demo data: ", StringComparison.Ordinal)
                && l.Contains($"heavy user {DemoData.HeavyUser.Value} has {DemoData.HeavyUserHighlights} highlights", StringComparison.Ordinal));

            Assert.Equal(HttpStatusCode.OK, await ReadyStatusAsync(app));
            var store = app.Services.GetRequiredService<IDeviceReadStore>();
            var page = await store.ListHighlightsAsync(DemoData.HeavyUser, HighlightRange.ForUser(DemoData.HeavyUser), 10, TestTimeout.Token);
            Assert.Equal(10, page?.Count);

            pid = ((EmbeddedPostgres)app.Services.GetRequiredService<StorageConnection>().Embedded!).ProcessId;
            await app.StopAsync(TestTimeout.Token);
        }

        Assert.False(NativeMethods.IsAlive(pid), "the embedded server still runs after shutdown");
        Assert.False(File.Exists(Path.Combine(dataDirectory, "postmaster.pid")));
        PostgresServer.DeleteScratchDirectory(scratch);
    }

    [Fact]
    public async Task WithAConnectionStringTheServiceMigratesAndSeedsThatDatabaseOnce()
    {
        await using var db = new ThrowAwayDatabase();
        await db.InitializeAsync();
        var settings = new Dictionary<string, string?> { ["Storage:ConnectionString"] = db.ConnectionString };

        await using (var first = await StartAsync(new LogLines(), settings))
        {
            Assert.Equal(HttpStatusCode.OK, await ReadyStatusAsync(first));
        }

        var logs = new LogLines();
        await using var second = await StartAsync(logs, settings);

        Assert.DoesNotContain(logs.Lines, l => l.StartsWith("Seeded", StringComparison.Ordinal));
        var user = await second.Services.GetRequiredService<IDeviceReadStore>().FindUserAsync(new UserNo(123), TestTimeout.Token);
        Assert.NotNull(user);
        Assert.Single(logs.Lines, l => l.StartsWith("Storage: Host=127.0.0.1;Port=", StringComparison.Ordinal) && !l.Contains("Password", StringComparison.Ordinal));
    }

    [Fact]
    public async Task ThePoolsAreSizedFromTheServersLimitAndTheInstanceCountAndAMaximumThatWouldNotFitIsWarnedOf()
    {
        await using var db = new ThrowAwayDatabase();
        await db.InitializeAsync();
        await using var admin = new NpgsqlConnection(db.ConnectionString);
        await admin.OpenAsync(TestTimeout.Token);
        await using var show = new NpgsqlCommand("SELECT current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int", admin);
        var budget = (int)(await show.ExecuteScalarAsync(TestTimeout.Token))! - 10;

        var sized = new LogLines();
        await using (var app = await StartAsync(sized, new() { ["Storage:ConnectionString"] = db.ConnectionString, ["Storage:Instances"] = "4" }))
        {
            var pool = new NpgsqlConnectionStringBuilder(app.Services.GetRequiredService<NpgsqlDataSource>().ConnectionString);
            Assert.Equal((budget / 4) - 2, pool.MaxPoolSize);
            Assert.Equal(pool.MaxPoolSize, pool.MinPoolSize);
            Assert.Single(sized.Lines, l => l.StartsWith("Storage connections: ", StringComparison.Ordinal)
                && l.Contains("Storage:Instances 4", StringComparison.Ordinal) && l.Contains($"holds at most {budget / 4}", StringComparison.Ordinal));
            Assert.DoesNotContain(sized.Lines, l => l.Contains("more than the server's", StringComparison.Ordinal));
        }

        await using (var withReads = await StartAsync(new LogLines(), new()
        {
            ["Storage:ConnectionString"] = db.ConnectionString,
            ["Storage:ReadConnectionString"] = db.ConnectionString,
            ["Storage:Instances"] = "4",
        }))
        {
            var share = (budget / 4) - 2; // less live pull's two (the listener and the signals)
            var writes = new NpgsqlConnectionStringBuilder(withReads.Services.GetRequiredService<NpgsqlDataSource>().ConnectionString);
            var reads = new NpgsqlConnectionStringBuilder(
                withReads.Services.GetRequiredKeyedService<NpgsqlDataSource>(StorageDataSource.ReadKey).ConnectionString);
            Assert.Equal((share - (share / 2), share / 2), (writes.MaxPoolSize, reads.MaxPoolSize));
            Assert.Equal(reads.MaxPoolSize, reads.MinPoolSize);
        }

        var oversized = new LogLines();
        await using var explicitMax = await StartAsync(oversized, new()
        {
            ["Storage:ConnectionString"] = db.ConnectionString + ";Maximum Pool Size=" + budget,
            ["Storage:Instances"] = "4",
        });

        Assert.Equal(budget, new NpgsqlConnectionStringBuilder(explicitMax.Services.GetRequiredService<NpgsqlDataSource>().ConnectionString).MaxPoolSize);
        Assert.Single(oversized.Lines, l => l.Contains("more than the server's", StringComparison.Ordinal) && l.Contains("Storage:Instances 4", StringComparison.Ordinal));
    }

    [Fact]
    public async Task WithSeedingOffTheStoreStaysEmptyAndIsStillReady()
    {
        await using var db = new ThrowAwayDatabase();
        await db.InitializeAsync();

        await using var app = await StartAsync(new LogLines(), new() { ["Storage:ConnectionString"] = db.ConnectionString, ["Demo:Seed"] = "false" });

        Assert.Equal(HttpStatusCode.OK, await ReadyStatusAsync(app));
        Assert.Null(await app.Services.GetRequiredService<IDeviceReadStore>().FindUserAsync(new UserNo(1), TestTimeout.Token));
    }

    [Theory]
    [InlineData("Storage:Embedded:Port", "0", "Storage:Embedded:Port must be between 1 and 65535")]
    [InlineData("Storage:Embedded:Database", "Kobo-Sync", "Storage:Embedded:Database must be")]
    [InlineData("Storage:Embedded:DataDirectory", " ", "Storage:Embedded:DataDirectory must name a directory")]
    [InlineData("Storage:ConnectionString", "Host=x;Nonsense Key=1", "Storage:ConnectionString is not a valid Npgsql connection string")]
    [InlineData("Storage:ReadConnectionString", "Host=a;Database=d", "Storage:ReadConnectionString needs Storage:ConnectionString too")]
    [InlineData("Storage:Instances", "0", "Storage:Instances must be from 1 to 1000")]
    [InlineData("Storage:ReservedConnections", "-1", "Storage:ReservedConnections must be from 0 to 10000")]
    public async Task ABadSettingFailsTheStartNamingTheKey(string key, string value, string message)
    {
        // The embedded server's settings count where it runs: asked for here, as the start is not Development's.
        var settings = new Dictionary<string, string?> { [key] = value, ["Storage:Embedded:Enabled"] = key.StartsWith("Storage:Embedded:", StringComparison.Ordinal) ? "true" : null };

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => StartAsync(new LogLines(), settings));

        Assert.Contains(message, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("Production", null)]
    [InlineData("Staging", "false")]
    [InlineData("Development", "false")] // switched off where it is the default
    public async Task WithoutTheEmbeddedServerAnEmptyConnectionStringFailsTheStartNamingTheKey(string environment, string? enabled)
    {
        var scratch = PostgresServer.NewScratchDirectory();
        var dataDirectory = Path.Combine(scratch, "data", "postgres");

        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => StartAsync(
            new LogLines(), new() { ["Storage:Embedded:DataDirectory"] = dataDirectory, ["Storage:Embedded:Enabled"] = enabled }, environment));

        Assert.Contains("Storage:ConnectionString is empty", error.Message, StringComparison.Ordinal);
        Assert.Contains("Storage:Embedded:Enabled", error.Message, StringComparison.Ordinal);
        Assert.False(Directory.Exists(dataDirectory), "a server was started all the same");
        PostgresServer.DeleteScratchDirectory(scratch);
    }

    [Theory]
    [InlineData("Production", "true")] // a benchmark's script that exports the setting, then gives a command its database
    [InlineData("Development", null)]
    public void AConnectionStringWinsOverTheEmbeddedServer(string environment, string? enabled)
    {
        var options = new StorageOptions { ConnectionString = "Host=a;Database=d", Embedded = { Enabled = enabled is null ? null : bool.Parse(enabled) } };

        options.DefaultEmbeddedFor(environment);

        Assert.False(options.UsesEmbeddedServer);
        Assert.True(new StorageOptionsValidator().Validate(null, options).Succeeded);
    }

    [Fact]
    public async Task AReadConnectionStringNpgsqlCannotUseFailsTheStartNamingTheKey()
    {
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => StartAsync(new LogLines(), new()
        {
            ["Storage:ConnectionString"] = "Host=a;Database=d",
            ["Storage:ReadConnectionString"] = "Host=a;Database=d;Target Session Attributes=standby",
        }));

        Assert.Contains("Storage:ReadConnectionString is not a valid Npgsql connection string", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AutomaticPreparationIsSwitchedOnUnlessTheConnectionStringSetsIt()
    {
        Assert.Contains("Max Auto Prepare=20", StorageDataSource.WithServiceDefaults("Host=a,b;Database=d"), StringComparison.Ordinal);
        Assert.Contains("Auto Prepare Min Usages=2", StorageDataSource.WithServiceDefaults("Host=a;Database=d"), StringComparison.Ordinal);
        Assert.Contains("Max Auto Prepare=5", StorageDataSource.WithServiceDefaults("Host=a;maxautoprepare=5"), StringComparison.Ordinal);
        Assert.Contains("Auto Prepare Min Usages=7", StorageDataSource.WithServiceDefaults("Host=a;Auto Prepare Min Usages=7"), StringComparison.Ordinal);
        Assert.Contains("Host=a,b", StorageDataSource.WithServiceDefaults("Host=a,b;Target Session Attributes=primary"), StringComparison.Ordinal);
        Assert.Equal("Host=a,b;Port=6432;Database=d;Username=u", StorageDataSource.LogSafe("Host=a,b;Port=6432;Database=d;Username=u;Password=secret"));
    }

    [Fact]
    public void PooledConnectionsSkipTheSessionResetUnlessTheConnectionStringAsksForIt()
    {
        Assert.Contains("No Reset On Close=True", StorageDataSource.WithServiceDefaults("Host=a;Database=d"), StringComparison.Ordinal);
        Assert.Contains("No Reset On Close=False", StorageDataSource.WithServiceDefaults("Host=a;No Reset On Close=false"), StringComparison.Ordinal);
    }

    [Fact]
    public void PoolsKeepEveryConnectionTheyOpenUnlessTheConnectionStringSetsAFloor()
    {
        Assert.Equal(100, Builder("Host=a;Database=d").MinPoolSize); // Npgsql's maximum
        Assert.Equal(10, Builder("Host=a;Database=d;Maximum Pool Size=10").MinPoolSize);
        Assert.Equal(0, Builder("Host=a;Database=d;Minimum Pool Size=0").MinPoolSize);
        Assert.Equal(4, Builder("Host=a;Database=d;MinPoolSize=4;Maximum Pool Size=10").MinPoolSize);

        static NpgsqlConnectionStringBuilder Builder(string connectionString) => new(StorageDataSource.WithServiceDefaults(connectionString));
    }

    [Fact]
    public void AHostListBecomesAMultiHostSourceThatFailsOverByItself()
    {
        using var dataSource = StorageDataSource.Create("Host=a,b;Database=d;Target Session Attributes=primary");
        Assert.IsType<Npgsql.NpgsqlMultiHostDataSource>(dataSource);
    }

    private static async Task<WebApplication> StartAsync(LogLines logs, Dictionary<string, string?> settings, string environment = "Production")
    {
        var builder = WebApplication.CreateBuilder(new WebApplicationOptions { EnvironmentName = environment });
        builder.WebHost.UseTestServer();
        builder.Configuration.AddInMemoryCollection(settings);
        builder.Logging.ClearProviders().AddProvider(logs);
        builder.AddStorage();
        var app = builder.Build();
        app.MapHealthChecks("/healthz/ready", new HealthCheckOptions { Predicate = c => c.Tags.Contains(ServiceDefaultsExtensions.ReadyTag) });
        try
        {
            await app.StartAsync(TestTimeout.Token);
        }
        catch
        {
            await app.DisposeAsync();
            throw;
        }

        return app;
    }

    private static async Task<HttpStatusCode> ReadyStatusAsync(WebApplication app)
    {
        using var client = app.GetTestClient();
        using var response = await client.GetAsync(new Uri("/healthz/ready", UriKind.Relative), TestTimeout.Token);
        return response.StatusCode;
    }

    private sealed class ThrowAwayDatabase : PostgresDatabase, IAsyncDisposable
    {
        async ValueTask IAsyncDisposable.DisposeAsync() => await DisposeAsync();
    }

    /// <summary>Rendered log lines at Information and above.</summary>
    private sealed class LogLines : ILoggerProvider, ILogger
    {
        private readonly ConcurrentQueue<string> _lines = new();

        public IReadOnlyList<string> Lines => [.. _lines];

        public ILogger CreateLogger(string categoryName) => this;

        public IDisposable? BeginScope<TState>(TState state) where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Information;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (IsEnabled(logLevel))
            {
                _lines.Enqueue(formatter(state, exception));
            }
        }

        public void Dispose()
        {
        }
    }
}
