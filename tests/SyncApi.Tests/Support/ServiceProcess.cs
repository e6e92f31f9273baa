using System.Collections.Concurrent;
using System.Diagnostics;
using Kobo.Sync.DevServer.Embedded;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// The service as operators run it: <c>dotnet Kobo.Sync.SyncApi.dll</c> in its own process, on the run's
/// shared demo database, stopped with SIGTERM. For what an in-process host cannot show: where the
/// settings file is found, and what one process alone puts on /metrics.
/// </summary>
public static class ServiceProcess
{
    /// <summary>Starts the service in <paramref name="workingDirectory"/>, waits until it answers, runs <paramref name="calls"/>, stops it; its output lines.</summary>
    public static async Task<IReadOnlyList<string>> RunAsync(string workingDirectory, IEnumerable<string> arguments, Func<HttpClient, Task> calls)
    {
        var rest = LoopbackPorts.Free();
        var start = new ProcessStartInfo("dotnet")
        {
            WorkingDirectory = workingDirectory,
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
            using var http = new HttpClient { BaseAddress = new Uri($"http://127.0.0.1:{rest}"), Timeout = TimeSpan.FromSeconds(10) };
            var clock = Stopwatch.StartNew();
            while (!await AnswersAsync(http))
            {
                Assert.False(service.HasExited, $"the service exited with {(service.HasExited ? service.ExitCode : 0)}:\n{string.Join('\n', lines)}");
                Assert.True(clock.Elapsed < TimeSpan.FromSeconds(60), $"the service did not answer within 60 s:\n{string.Join('\n', lines)}");
                await Task.Delay(200);
            }

            await calls(http);
        }
        finally
        {
            NativeMethods.Signal(service.Id, 15); // SIGTERM
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
