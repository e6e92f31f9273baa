using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using Kobo.Sync.DeviceSimulator.Seeding;
using Kobo.Sync.SyncApi.Infrastructure.Storage;
using Spectre.Console;

namespace Kobo.Sync.DeviceSimulator.Cli;

/// <summary><c>seed</c>: writes a long-tail data set of any scale with binary COPY, and the heaviest-users list.</summary>
internal static class SeedCommand
{
    public static Command Create()
    {
        var connection = new Option<string>("--connection") { Description = "Npgsql connection string of the target database.", Required = true };
        var users = new Option<int?>("--users") { Description = "Number of users (the rest of the data set scales with it)." };
        var scale = new Option<double?>("--scale") { Description = "Fraction of the published data set (69.38 M users), e.g. 0.002." };
        var seed = new Option<int>("--seed") { Description = "Seed: the same seed and size give the same data set.", DefaultValueFactory = _ => 20_211 };
        var writers = new Option<int>("--writers") { Description = "Parallel COPY writers.", DefaultValueFactory = _ => Math.Max(1, Environment.ProcessorCount) };
        var truncate = new Option<bool>("--truncate") { Description = "Replace the users, books, ownerships and highlights already there." };
        var heaviest = new Option<string>("--heaviest-out") { Description = "Where to write the heaviest-users list.", DefaultValueFactory = _ => "heaviest-users.tsv" };
        var top = new Option<int>("--top") { Description = "How many of the heaviest users to list.", DefaultValueFactory = _ => 100_000 };

        var command = new Command("seed", "Seed users, books, ownerships and highlights with the production long tail, deterministically.")
        {
            connection, users, scale, seed, writers, truncate, heaviest, top,
        };
        command.Validators.Add(result =>
        {
            if ((result.GetValue(users) is null) == (result.GetValue(scale) is null))
            {
                result.AddError("Give exactly one of --users or --scale.");
            }
        });
        command.SetAction(async (parse, cancellationToken) =>
        {
            SeedScale size;
            try
            {
                var seedValue = parse.GetValue(seed);
                size = parse.GetValue(users) is { } n ? SeedScale.FromUsers(n, seedValue) : SeedScale.FromFactor(parse.GetValue(scale)!.Value, seedValue);
            }
            catch (ArgumentOutOfRangeException exception)
            {
                await Console.Error.WriteLineAsync($"error: {exception.Message}");
                return 2;
            }

            var plan = SeedPlan.Create(size);
            await using var dataSource = StorageDataSource.Create(parse.GetValue(connection)!);
            try
            {
                var result = await RunWithProgressAsync(
                    plan, (progress, ct) => new Seeder(dataSource).SeedAsync(plan, parse.GetValue(writers), parse.GetValue(truncate), progress, ct), cancellationToken);
                var heavy = HeaviestUsersFile.Select(plan, parse.GetValue(top));
                HeaviestUsersFile.Write(parse.GetValue(heaviest)!, plan, heavy);
                PrintSummary(plan, result, heavy, parse.GetValue(heaviest)!);
                return 0;
            }
            catch (SeedRefusedException exception)
            {
                await Console.Error.WriteLineAsync($"error: {exception.Message}");
                return 3;
            }
        });
        return command;
    }

    private static Task<SeedResult> RunWithProgressAsync(
        SeedPlan plan, Func<Action<long>, CancellationToken, Task<SeedResult>> seed, CancellationToken cancellationToken)
    {
        long written = 0;
        var clock = Stopwatch.StartNew();
        var run = seed(rows => Interlocked.Add(ref written, rows), cancellationToken);
        return LiveProgress.TrackAsync(
            run, "rows", plan.TotalRows,
            () =>
            {
                var rows = Interlocked.Read(ref written);
                return (rows, ProgressLine(rows, plan.TotalRows, clock.Elapsed));
            },
            TimeSpan.FromSeconds(2));
    }

    internal static string ProgressLine(long rows, long total, TimeSpan elapsed)
    {
        var rate = rows / Math.Max(elapsed.TotalSeconds, 1e-3);
        var eta = rate > 0 ? TimeSpan.FromSeconds(Math.Max(0, total - rows) / rate) : TimeSpan.Zero;
        return string.Create(CultureInfo.InvariantCulture,
            $"{rows:N0}/{total:N0} rows, {rate:N0} rows/s, ETA {eta:hh\\:mm\\:ss}{(rows >= total ? " (building keys)" : string.Empty)}");
    }

    private static void PrintSummary(SeedPlan plan, SeedResult result, IReadOnlyList<HeavyUser> heavy, string heaviestPath)
    {
        var table = new Table().AddColumns("table", "rows");
        table.AddRow("users", result.Users.ToString("N0", CultureInfo.InvariantCulture));
        table.AddRow("books", result.Books.ToString("N0", CultureInfo.InvariantCulture));
        table.AddRow("users_books", result.Ownerships.ToString("N0", CultureInfo.InvariantCulture));
        table.AddRow("highlights", result.Highlights.ToString("N0", CultureInfo.InvariantCulture));
        AnsiConsole.Write(table);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"seeded {result.Rows:N0} rows in {result.Elapsed.TotalSeconds:F1} s: {result.RowsPerSecond:N0} rows/s overall "
            + $"(COPY {result.LoadTime.TotalSeconds:F1} s at {result.Rows / Math.Max(result.LoadTime.TotalSeconds, 1e-9):N0} rows/s, keys and ANALYZE {result.KeysTime.TotalSeconds:F1} s); seed {plan.Scale.Seed}"));
        if (heavy.Count > 0)
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"heaviest user {heavy[0].UserNo} holds {heavy[0].Highlights:N0} highlights; {heavy.Count:N0} heaviest users listed in {heaviestPath}"));
        }
    }
}
