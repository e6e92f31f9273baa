using System.Diagnostics;

namespace Kobo.Sync.DeviceSimulator.Tests.Support;

/// <summary>Debian's headless Chromium, driven from the command line: a page's rendered DOM, its console, a screenshot.</summary>
public static class Chromium
{
    public static string? Path { get; } = new[] { "chromium", "chromium-browser", "google-chrome" }
        .SelectMany(name => (Environment.GetEnvironmentVariable("PATH") ?? string.Empty).Split(':').Select(dir => System.IO.Path.Combine(dir, name)))
        .FirstOrDefault(File.Exists);

    /// <summary>Loads <paramref name="page"/>, returns the DOM after rendering and everything the browser logged (console included).</summary>
    public static async Task<(string Dom, string Log)> RenderAsync(string page, string screenshot)
    {
        var profile = Directory.CreateTempSubdirectory("kobo-sim-chromium-");
        try
        {
            var dom = await RunAsync(profile.FullName, "--dump-dom", new Uri(page).AbsoluteUri);
            var shot = await RunAsync(profile.FullName, $"--screenshot={screenshot}", "--window-size=1100,1700", new Uri(page).AbsoluteUri);
            return (dom.Out, dom.Err + shot.Err);
        }
        finally
        {
            profile.Delete(recursive: true);
        }
    }

    private static async Task<(string Out, string Err)> RunAsync(string profile, params string[] args)
    {
        var start = new ProcessStartInfo(Path!)
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var arg in new[]
        {
            "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--enable-logging=stderr", "--v=0", $"--user-data-dir={profile}",
        }.Concat(args))
        {
            start.ArgumentList.Add(arg);
        }

        using var process = Process.Start(start)!;
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(90));
        try
        {
            await process.WaitForExitAsync(timeout.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"chromium {string.Join(' ', args)} did not finish in 90 s");
        }

        return (await stdout, await stderr);
    }
}

/// <summary>A fact skipped, saying why, where no Chromium is installed (.ci/run installs Debian's).</summary>
public sealed class FactWhenChromiumAttribute : FactAttribute
{
    public FactWhenChromiumAttribute() => Skip = Chromium.Path is null ? "chromium is not installed (Debian: apt-get install chromium)" : null;
}
