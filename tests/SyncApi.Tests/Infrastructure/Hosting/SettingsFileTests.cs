using System.Collections.Concurrent;
using System.Diagnostics;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Embedded;
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

    /// <summary>Starts the service in <see cref="_elsewhere"/>, calls it twice, stops it with SIGTERM; its stdout lines.</summary>
    private async Task<IReadOnlyList<string>> RunAndCallAsync(params string[] arguments)
    {
        var rest = LoopbackPorts.Free();
        var start = new ProcessStartInfo("dotnet")
        {
            WorkingDirectory = _elsewhere,
            UseShellExecute = false,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "Kobo.Sync.SyncApi.dll"));
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        start.Environment["ASPNETCORE_ENVIRONMENT"] = "Production";
        start.Environment["Endpoints__Rest"] = $"http://127.0.0.1:{rest}";
        start.Environment["Endpoints__Grpc"] = $"http://127.0.0.1:{LoopbackPorts.Free()}";
        start.Environment["Storage__ConnectionString"] = (await SharedDemoDatabase.GetAsync()).ConnectionString;
        start.Environment["Demo__Seed"] = "false";
        start.Environment["Auth__SigningKey"] = TestTokens.SigningKey;
        start.Environment["Paging__CursorKey"] = TestTokens.CursorKey;

        var lines = new ConcurrentQueue<string>();
        using var service = Process.Start(start)!;
        service.OutputDataReceived += (_, line) => lines.Enqueue(line.Data ?? string.Empty);
        service.ErrorDataReceived += (_, line) => lines.Enqueue(line.Data ?? string.Empty);
        service.BeginOutputReadLine();
        service.BeginErrorReadLine();
        try
        {
            using var http = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{rest}"), Timeout = TimeSpan.FromSeconds(5) };
            var clock = Stopwatch.StartNew();
            while (!await AnswersAsync(http))
            {
                Assert.False(service.HasExited, $"the service exited with {(service.HasExited ? service.ExitCode : 0)}:\n{string.Join('\n', lines)}");
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(60), $"the service did not answer within 60 s:\n{string.Join('\n', lines)}");
                await Task.Delay(200);
            }

            using var missing = await http.GetAsync("/v1/nothing-here");
            Assert.Equal(404, (int)missing.StatusCode);
        }
        finally
        {
            NativeMethods.Signal(service.Id, 15);
            using var grace = new CancellationTokenSource(TimeSpan.FromSeconds(30));
            try
            {
                await service.WaitForExitAsync(grace.Token);
            }
            catch (OperationCanceledException)
            {
                service.Kill(entireProcessTree: true);
            }
        }

        return [.. lines];
    }

    private static async Task<bool> AnswersAsync(HttpClient http)
    {
        try
        {
            using var live = await http.GetAsync("/healthz/live");
            return live.IsSuccessStatusCode;
        }
        catch (HttpRequestException)
        {
            return false;
        }
    }
}
