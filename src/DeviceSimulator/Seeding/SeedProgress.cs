using System.Diagnostics;
using System.Globalization;
using System.Text;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>The tables a seed writes, in the order it reports them.</summary>
public enum SeedTable
{
    Users,
    Books,
    Ownerships,
    Highlights,
}

/// <summary>
/// Rows written per table while a seed runs, against the plan's totals: what a long seed shows
/// (rows, rows/s, % and ETA per table), safe to read from another thread. A resumed seed starts
/// from the rows of the chunks already committed; its rates count only what this run wrote.
/// </summary>
public sealed class SeedProgress(SeedPlan plan)
{
    private readonly long[] _written = new long[4];
    private readonly long[] _resumed = new long[4];
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private readonly Stopwatch _step = new();
    private volatile string? _stepName;

    /// <summary>Raised (on a writer's thread) after a chunk of users is committed, with its number.</summary>
    public event Action<int>? ChunkCommitted;

    public SeedPlan Plan => plan;

    public long Total(SeedTable table) => table switch
    {
        SeedTable.Users => plan.Scale.Users,
        SeedTable.Books => plan.Scale.Books,
        SeedTable.Ownerships => plan.TotalOwnerships,
        _ => plan.TotalHighlights,
    };

    public long Written(SeedTable table) => Interlocked.Read(ref _written[(int)table]);

    public void Add(SeedTable table, long rows) => Interlocked.Add(ref _written[(int)table], rows);

    /// <summary>Rows an earlier, interrupted run already committed: counted as written, not in the rates.</summary>
    public void AddResumed(SeedTable table, long rows)
    {
        Add(table, rows);
        Interlocked.Add(ref _resumed[(int)table], rows);
    }

    internal void Committed(int chunk) => ChunkCommitted?.Invoke(chunk);

    /// <summary>The rows are written: the rates stop here, before the keys are built.</summary>
    internal void LoadEnded() => _clock.Stop();

    /// <summary>
    /// What the seed does after the load, shown in the progress line: a key being built ("key
    /// users_books_changes, 5 of 7") or ANALYZE. They take minutes at 10 M users with no rows to count.
    /// </summary>
    internal void Step(string name)
    {
        _stepName = name;
        _step.Restart();
    }

    /// <summary>Rows per second this run wrote into <paramref name="table"/>, over the load (keys excluded).</summary>
    public double Rate(SeedTable table) =>
        (Written(table) - Interlocked.Read(ref _resumed[(int)table])) / Math.Max(_clock.Elapsed.TotalSeconds, 1e-3);

    /// <summary>One line: every table's rows, %, rows/s and ETA, and the whole seed's % and ETA.</summary>
    public string Line()
    {
        var line = new StringBuilder();
        long written = 0, resumed = 0, total = 0;
        foreach (var table in Enum.GetValues<SeedTable>())
        {
            var done = Written(table);
            written += done;
            resumed += Interlocked.Read(ref _resumed[(int)table]);
            total += Total(table);
            var tableRate = Rate(table);
            var tableEta = tableRate > 0 ? TimeSpan.FromSeconds(Math.Max(0, Total(table) - done) / tableRate) : TimeSpan.Zero;
            line.Append(CultureInfo.InvariantCulture,
                $"{Name(table)} {done:N0}/{Total(table):N0} ({Percent(done, Total(table)):F0}%, {tableRate:N0}/s, " +
                $"ETA {tableEta:hh\\:mm\\:ss})  ");
        }

        var rate = (written - resumed) / Math.Max(_clock.Elapsed.TotalSeconds, 1e-3);
        var eta = rate > 0 ? TimeSpan.FromSeconds(Math.Max(0, total - written) / rate) : TimeSpan.Zero;
        line.Append(CultureInfo.InvariantCulture, $"| {Percent(written, total):F1}%, ETA {eta:hh\\:mm\\:ss}");
        if (_stepName is { } step)
        {
            line.Append(CultureInfo.InvariantCulture, $" ({step}, {_step.Elapsed:hh\\:mm\\:ss})");
        }
        else if (written >= total)
        {
            line.Append(" (building keys)");
        }

        return line.ToString();
    }

    public static string Name(SeedTable table) => table switch
    {
        SeedTable.Users => "users",
        SeedTable.Books => "books",
        SeedTable.Ownerships => "users_books",
        _ => "highlights",
    };

    private static double Percent(long done, long total) => total == 0 ? 100 : 100.0 * done / total;
}
