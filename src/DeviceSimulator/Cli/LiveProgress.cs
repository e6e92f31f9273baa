using Spectre.Console;

namespace Kobo.Sync.DeviceSimulator.Cli;

/// <summary>
/// Shows a long task's progress until it ends: a live Spectre.Console bar on a terminal, a plain line
/// every few seconds when the output is redirected (CI logs, files).
/// </summary>
internal static class LiveProgress
{
    /// <param name="sample">The current position (0..<paramref name="max"/>) and a one-line description.</param>
    public static async Task<T> TrackAsync<T>(
        Task<T> work, string name, double max, Func<(double Value, string Line)> sample, TimeSpan plainEvery)
    {
        if (!AnsiConsole.Profile.Capabilities.Interactive)
        {
            while (await Task.WhenAny(work, Task.Delay(plainEvery, CancellationToken.None)) != work)
            {
                Console.WriteLine(sample().Line);
            }

            return await work;
        }

        return await AnsiConsole.Progress()
            .AutoClear(false)
            .Columns(new TaskDescriptionColumn(), new ProgressBarColumn(), new PercentageColumn(), new RemainingTimeColumn())
            .StartAsync(async context =>
            {
                var task = context.AddTask(name, maxValue: max);
                while (await Task.WhenAny(work, Task.Delay(TimeSpan.FromMilliseconds(250), CancellationToken.None)) != work)
                {
                    var (value, line) = sample();
                    task.Value = Math.Min(value, max);
                    task.Description = line;
                }

                task.Value = max;
                task.Description = sample().Line;
                return await work;
            });
    }
}
