using System.CommandLine;
using System.Text.Json;
using Kobo.Sync.DeviceSimulator.Gate;
using Kobo.Sync.DeviceSimulator.Scenarios.Day;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Cli;

/// <summary><c>verify</c>: a day's ledgers (every shard's) against the database, after the run.</summary>
internal static class VerifyCommand
{
    public static Command Create()
    {
        var ledgers = new Argument<string[]>("ledgers")
        {
            Description = "The ledger folders of a run's shards (run --ledger).", Arity = ArgumentArity.OneOrMore,
        };
        var postgres = new Option<string>("--postgres")
        {
            Description = "Npgsql connection string of the service's database.", Required = true,
        };
        var output = new Option<string?>("--out")
        {
            Description = "Write the verdict as JSON (verify.json) and Markdown (verify.md) into this folder.",
        };
        var command = new Command(
            "verify",
            "Check a day's acknowledged pushes and ledgered pulls against the database: nothing lost, " +
            "nothing missed.") { ledgers, postgres, output };
        command.SetAction(async (parse, cancellationToken) =>
        {
            var folders = parse.GetValue(ledgers)!;
            var missing = folders.FirstOrDefault(f => !Directory.Exists(f));
            if (missing is not null)
            {
                await Console.Error.WriteLineAsync($"error: no ledger folder {missing}");
                return RunCommand.UsageExitCode;
            }

            DayVerdict verdict;
            try
            {
                verdict = await DayVerification.CheckAsync(
                    parse.GetValue(postgres)!, folders, line => Console.WriteLine($"{DateTime.UtcNow:HH:mm:ss} {line}"), cancellationToken);
            }
            catch (Exception exception) when (exception is NpgsqlException or IOException or ArgumentException)
            {
                await Console.Error.WriteLineAsync($"error: {exception.Message}");
                return RunCommand.UsageExitCode;
            }

            var text = verdict.Describe();
            Console.WriteLine(text);
            if (parse.GetValue(output) is { } folder)
            {
                Directory.CreateDirectory(folder);
                await File.WriteAllTextAsync(Path.Combine(folder, "verify.md"), text + "\n", cancellationToken);
                await File.WriteAllTextAsync(
                    Path.Combine(folder, "verify.json"),
                    JsonSerializer.Serialize(
                        verdict, new JsonSerializerOptions { WriteIndented = true, PropertyNamingPolicy = JsonNamingPolicy.CamelCase }),
                    cancellationToken);
            }

            return verdict.Passed ? 0 : SlaGate.FailedExitCode;
        });
        return command;
    }
}
