using System.CommandLine;
using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Cli;

/// <summary><c>merge</c>: one report and one verdict from the <c>result.json</c> of every shard of a run.</summary>
internal static class MergeCommand
{
    public static Command Create()
    {
        var inputs = new Argument<string[]>("results")
        {
            Description = "The shards' result.json files (or their folders).", Arity = ArgumentArity.OneOrMore,
        };
        var output = new Option<string?>("--out") { Description = "Results folder (default: load/results/<UTC timestamp>-merged)." };
        var command = new Command(
            "merge",
            "Merge the results of a run's shards into one report, with percentiles from the merged histograms.") { inputs, output };
        command.SetAction(async (parse, cancellationToken) =>
        {
            RunResult merged;
            try
            {
                var results = parse.GetValue(inputs)!
                    .Select(path => Directory.Exists(path) ? Path.Combine(path, "result.json") : path)
                    .Select(ResultJson.Read)
                    .ToList();
                merged = ResultMerger.Merge(results);
            }
            catch (Exception exception)
                when (exception is IOException or FormatException or System.Text.Json.JsonException or ArgumentException)
            {
                await Console.Error.WriteLineAsync($"error: {exception.Message}");
                return RunCommand.UsageExitCode;
            }

            var folder = parse.GetValue(output) ?? ReportWriter.DefaultFolder(Path.Combine("load", "results"), merged.Started, "merged");
            ReportWriter.Write(folder, merged);
            Console.WriteLine($"report: {Path.Combine(folder, "report.html")}");
            Console.WriteLine(merged.Verdict);
            return SlaGate.ExitCode(merged);
        });
        return command;
    }
}
