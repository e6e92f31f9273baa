using System.Globalization;
using System.Text;
using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Day;

/// <summary>
/// What a day's devices were told, written as they are told it, for the checks against the database
/// after the run (<c>verify</c>): every acknowledged push (each highlight change, each reading-state
/// put) and every pull that could have missed something (every pull of a user the run writes to, every
/// first sync and catch-up, and any pull that received a change), with the highlight range it covered
/// (its first and last positions, from the tokens) and the highlight changes it received. Tab-separated
/// lines, one file of each per shard, flushed when the run ends.
/// </summary>
public sealed class DayLedger : IDisposable
{
    private readonly Lock _lock = new();
    private readonly StreamWriter _acked;
    private readonly StreamWriter _pulls;

    public DayLedger(string folder, string shard)
    {
        Directory.CreateDirectory(folder);
        _acked = Open(Path.Combine(folder, $"acked-{shard}.tsv"));
        _pulls = Open(Path.Combine(folder, $"pulls-{shard}.tsv"));
    }

    public long Acknowledged { get; private set; }

    public long Pulls { get; private set; }

    /// <summary>A highlight change the service acknowledged (applied or unchanged).</summary>
    public void Highlight(long user, string id, bool deleted) =>
        Write(_acked, string.Create(CultureInfo.InvariantCulture, $"h\t{user}\t{id}\t{(deleted ? 1 : 0)}"), acked: true);

    /// <summary>A reading-state put the service acknowledged: its position and status at <paramref name="modifiedAt"/>.</summary>
    public void ReadingState(long user, long book, DateTimeOffset modifiedAt) =>
        Write(_acked, string.Create(CultureInfo.InvariantCulture, $"r\t{user}\t{book}\t{modifiedAt.UtcDateTime:O}"), acked: true);

    /// <summary>
    /// A device's pulls of one sync: from its first position to the one its last page returned, and the highlight changes they brought.
    /// </summary>
    public void Pull(long user, DaySyncKind kind, long fromSeq, string fromId, long toSeq, string toId, long highlights) =>
        Write(
            _pulls, string.Create(CultureInfo.InvariantCulture, $"{user}\t{kind}\t{fromSeq}\t{fromId}\t{toSeq}\t{toId}\t{highlights}"),
            acked: false);

    public void Dispose()
    {
        lock (_lock)
        {
            _acked.Dispose();
            _pulls.Dispose();
        }
    }

    private static StreamWriter Open(string path) =>
        new(
            new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 16),
            new UTF8Encoding(false), 1 << 16) { NewLine = "\n" };

    private void Write(StreamWriter file, string line, bool acked)
    {
        lock (_lock)
        {
            file.WriteLine(line);
            if (acked)
            {
                Acknowledged++;
            }
            else
            {
                Pulls++;
            }
        }
    }
}
