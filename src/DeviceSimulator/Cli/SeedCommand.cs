using System.CommandLine;
using System.Globalization;
using Kobo.Sync.DeviceSimulator.Seeding;
using Kobo.Sync.Storage;

namespace Kobo.Sync.DeviceSimulator.Cli;

/// <summary><c>seed</c>: writes a long-tail data set of any scale with binary COPY, and the heaviest-users list.</summary>
internal static class SeedCommand
{
    public static Command Create()
    {
        var connection = new Option<string?>("--connection")
        {
            Description = "Npgsql connection string of the target database (required unless --plan-only).",
        };
        var users = new Option<int?>("--users") { Description = "Number of users (the rest of the data set scales with it)." };
        var scale = new Option<double?>("--scale") { Description = "Fraction of the published data set (69.38 M users), e.g. 0.002." };
        var seed = new Option<int>("--seed")
        {
            Description = "Seed: the same seed and size give the same data set.", DefaultValueFactory = _ => 20_211,
        };
        var writers = new Option<int>("--writers")
        {
            Description = "Parallel COPY writers.", DefaultValueFactory = _ => Math.Max(1, Environment.ProcessorCount),
        };
        var truncate = new Option<bool>("--truncate")
        {
            Description = "Replace the users, books, ownerships and highlights already there.",
        };
        var heaviest = new Option<string>("--heaviest-out")
        {
            Description = "Where to write the heaviest-users list.", DefaultValueFactory = _ => "heaviest-users.tsv",
        };
        var top = new Option<int>("--top") { Description = "How many of the heaviest users to list.", DefaultValueFactory = _ => 100_000 };
        var chunkUsers = new Option<int>("--chunk-users")
        {
            Description = "Users per committed chunk: an interrupted seed resumes after the last committed chunk.",
            DefaultValueFactory = _ => SeedOptions.DefaultChunkUsers,
        };
        var keysDuringLoad = new Option<bool>("--keys-during-load")
        {
            Description = "Keep the keys and indexes while loading instead of building them after (slower; to measure the difference).",
        };
        var planOnly = new Option<bool>("--plan-only")
        {
            Description = "Print the rows each table would get (users, books, ownerships, highlights) and stop: nothing is written.",
        };
        var reportOut = new Option<string?>("--report-out")
        {
            Description = "Also write the end report (rows/s and disk bytes per table, index and document) as JSON to this file.",
        };

        var command = new Command("seed", "Seed users, books, ownerships and highlights with the production long tail, deterministically.")
        {
            connection, users, scale, seed, writers, truncate, heaviest, top, chunkUsers, keysDuringLoad, planOnly, reportOut,
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
            if (parse.GetValue(chunkUsers) < 1 || parse.GetValue(writers) < 1)
            {
                await Console.Error.WriteLineAsync("error: --chunk-users and --writers must be at least 1.");
                return 2;
            }

            SeedScale size;
            try
            {
                var seedValue = parse.GetValue(seed);
                size = parse.GetValue(users) is { } n
                    ? SeedScale.FromUsers(n, seedValue)
                    : SeedScale.FromFactor(parse.GetValue(scale)!.Value, seedValue);
            }
            catch (ArgumentOutOfRangeException exception)
            {
                await Console.Error.WriteLineAsync($"error: {exception.Message}");
                return 2;
            }

            var plan = SeedPlan.Create(size);
            if (parse.GetValue(planOnly))
            {
                Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"users={plan.Scale.Users} books={plan.Scale.Books} users_books={plan.TotalOwnerships} " +
                    $"highlights={plan.TotalHighlights}"));
                return 0;
            }

            if (string.IsNullOrEmpty(parse.GetValue(connection)))
            {
                await Console.Error.WriteLineAsync("error: --connection is required.");
                return 2;
            }

            await using var dataSource = StorageDataSource.Create(parse.GetValue(connection)!);
            try
            {
                var options = new SeedOptions
                {
                    Writers = parse.GetValue(writers), Truncate = parse.GetValue(truncate),
                    ChunkUsers = parse.GetValue(chunkUsers), KeysDuringLoad = parse.GetValue(keysDuringLoad),
                };
                var progress = new SeedProgress(plan);
                var result = await LiveProgress.TrackAsync(
                    new Seeder(dataSource).SeedAsync(plan, options, progress, cancellationToken), "rows", plan.TotalRows,
                    () => (SeedTables.Sum(progress.Written), progress.Line()), TimeSpan.FromSeconds(5));
                var sizes = await SeedSizes.MeasureAsync(dataSource, t => RowsOf(result, t), cancellationToken);
                var heavy = HeaviestUsersFile.Select(plan, parse.GetValue(top));
                HeaviestUsersFile.Write(parse.GetValue(heaviest)!, plan, heavy);
                SeedReport.Print(plan, progress, result, sizes, heavy, parse.GetValue(heaviest)!);
                if (parse.GetValue(reportOut) is { } path)
                {
                    SeedReport.WriteJson(path, plan, progress, result, sizes);
                }

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

    private static readonly SeedTable[] SeedTables = Enum.GetValues<SeedTable>();

    private static long RowsOf(SeedResult result, string table) => table switch
    {
        "users" => result.Users,
        "books" => result.Books,
        "users_books" => result.Ownerships,
        _ => result.Highlights,
    };
}
