using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Hosting;

/// <summary>
/// The service started as <c>dotnet path/to/Kobo.Sync.SyncApi.dll</c> from another directory reads the
/// settings file beside its assembly; with no settings file at all, the defaults in code keep the log
/// to one line per request. Each run is a real process on the run's shared database.
/// </summary>
public sealed class SettingsFileTests : IDisposable
{
    // ASP.NET Core's own per-request Information events; appsettings.json (and the code defaults) raise
    // Microsoft.AspNetCore to Warning, so none may appear.
    private const string AspNetCoreRequestEvents = "\"SourceContext\":\"Microsoft.AspNetCore.Hosting.Diagnostics\"";

    private readonly string _elsewhere = Directory.CreateTempSubdirectory("kobo-sync-cwd-").FullName;

    [Fact]
    public async Task StartedFromAnotherDirectoryTheServiceReadsTheSettingsFileBesideItsAssembly()
    {
        var log = await RunAndCallAsync();

        var beside = Path.Combine(AppContext.BaseDirectory, "appsettings.json");
        Assert.Contains(log, line => line.Contains("Settings read from", StringComparison.Ordinal) && line.Contains(beside, StringComparison.Ordinal));
        Assert.DoesNotContain(log, line => line.Contains(AspNetCoreRequestEvents, StringComparison.Ordinal));
        Assert.Contains(log, line => line.Contains("GET /healthz/live responded 200", StringComparison.Ordinal));
    }

    [Fact]
    public async Task WithNoSettingsFileTheStartSaysSoAndTheDefaultsInCodeKeepTheLogToOneLinePerRequest()
    {
        // An explicit content root with no settings file in it: only the defaults in code remain.
        var log = await RunAndCallAsync($"--contentRoot={_elsewhere}");

        Assert.Contains(log, line => line.Contains("\"Level\":\"Warning\"", StringComparison.Ordinal)
            && line.Contains("No settings file at", StringComparison.Ordinal)
            && line.Contains(Path.Combine(_elsewhere, "appsettings.json"), StringComparison.Ordinal));
        Assert.DoesNotContain(log, line => line.Contains("Settings read from", StringComparison.Ordinal));
        Assert.DoesNotContain(log, line => line.Contains(AspNetCoreRequestEvents, StringComparison.Ordinal));
        Assert.Contains(log, line => line.Contains("GET /healthz/live responded 200", StringComparison.Ordinal));
    }

    public void Dispose() => Directory.Delete(_elsewhere, recursive: true);

    /// <summary>Runs the service in <see cref="_elsewhere"/> and calls it: live, then a path that does not exist.</summary>
    private Task<IReadOnlyList<string>> RunAndCallAsync(params string[] arguments) =>
        ServiceProcess.RunAsync(_elsewhere, arguments, async http =>
        {
            using var missing = await http.GetAsync("/v1/nothing-here");
            Assert.Equal(404, (int)missing.StatusCode);
        });
}
