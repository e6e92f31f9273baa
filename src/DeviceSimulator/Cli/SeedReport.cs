using System.Globalization;
using System.Text.Json;
using Kobo.Sync.DeviceSimulator.Seeding;
using Spectre.Console;

namespace Kobo.Sync.DeviceSimulator.Cli;

/// <summary>
/// The end of a seed: elapsed time, rows/s per table, and disk bytes per table, per index and per
/// document, on the console and, for scripts (the scale benchmark's disk estimate), as JSON.
/// </summary>
internal static class SeedReport
{
    public static void Print(
        SeedPlan plan, SeedProgress progress, SeedResult result,
        IReadOnlyList<TableSize> sizes, IReadOnlyList<HeavyUser> heavy, string heaviestPath)
    {
        if (!AnsiConsole.Profile.Capabilities.Interactive)
        {
            AnsiConsole.Profile.Width = 160; // a log file: one line per table and index, not wrapped at 80
        }

        var table = new Table().AddColumns("table", "rows", "rows/s", "table bytes", "index bytes", "bytes per row");
        foreach (var size in sizes)
        {
            table.AddRow(
                size.Table, N(size.Rows), N(progress.Rate(TableOf(size.Table))),
                N(size.TableBytes), N(size.IndexBytes), N(size.BytesPerRow));
            foreach (var (index, bytes) in size.Indexes)
            {
                table.AddRow(
                    $"  {index}", string.Empty, string.Empty, string.Empty, N(bytes), N(size.Rows == 0 ? 0 : (double)bytes / size.Rows));
            }
        }

        AnsiConsole.Write(table);
        var resumed = result.ResumedChunks > 0 ? $"; resumed after {N(result.ResumedChunks)} committed chunks" : string.Empty;
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"seeded {result.Rows:N0} rows in {result.Elapsed.TotalSeconds:F1} s: {result.RowsPerSecond:N0} rows/s overall (COPY " +
            $"{result.LoadTime.TotalSeconds:F1} s, keys and ANALYZE {result.KeysTime.TotalSeconds:F1} s); " +
            $"seed {plan.Scale.Seed}{resumed}"));
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"disk: {N(sizes.Sum(s => s.TableBytes + s.IndexBytes))} bytes, {N(Total(sizes) / Math.Max(1, plan.Scale.Users))} per user " +
            $"(all tables)"));
        if (heavy.Count > 0)
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"heaviest user {heavy[0].UserNo} holds {heavy[0].Highlights:N0} highlights; " +
                $"{heavy.Count:N0} heaviest users listed in {heaviestPath}"));
        }
    }

    public static void WriteJson(string path, SeedPlan plan, SeedProgress progress, SeedResult result, IReadOnlyList<TableSize> sizes)
    {
        var report = new
        {
            users = plan.Scale.Users,
            seed = plan.Scale.Seed,
            elapsedSeconds = result.Elapsed.TotalSeconds,
            loadSeconds = result.LoadTime.TotalSeconds,
            keysSeconds = result.KeysTime.TotalSeconds,
            resumedChunks = result.ResumedChunks,
            totalBytes = Total(sizes),
            bytesPerUser = Total(sizes) / Math.Max(1, plan.Scale.Users),
            tables = sizes.Select(s => new
            {
                table = s.Table,
                rows = s.Rows,
                rowsPerSecond = progress.Rate(TableOf(s.Table)),
                tableBytes = s.TableBytes,
                indexBytes = s.IndexBytes,
                bytesPerRow = s.BytesPerRow,
                indexes = s.Indexes.Select(i => new { index = i.Index, bytes = i.Bytes }),
            }),
        };
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
        File.WriteAllText(path, JsonSerializer.Serialize(report, new JsonSerializerOptions { WriteIndented = true }));
    }

    private static double Total(IReadOnlyList<TableSize> sizes) => sizes.Sum(s => (double)(s.TableBytes + s.IndexBytes));

    private static SeedTable TableOf(string table) => table switch
    {
        "users" => SeedTable.Users,
        "books" => SeedTable.Books,
        "users_books" => SeedTable.Ownerships,
        _ => SeedTable.Highlights,
    };

    private static string N(double value) => value.ToString("N0", CultureInfo.InvariantCulture);
}
