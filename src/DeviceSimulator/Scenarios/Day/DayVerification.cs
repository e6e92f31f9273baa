using System.Globalization;
using System.Text;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Day;

/// <summary>One kind of sync's pulls against the database.</summary>
public sealed record PullCheck(
    string Kind, long Pulls, long Received, long InDatabase, long PullsMissing, long Missed, long PullsWithExtra, long Extra);

/// <summary>The ledger of a day's run against the database after it.</summary>
public sealed record DayVerdict(
    long AcknowledgedHighlights, long LostHighlights, long AcknowledgedReadingStates,
    long LostReadingStates, IReadOnlyList<PullCheck> Pulls)
{
    public long Missed => Pulls.Sum(p => p.Missed);

    public long Extra => Pulls.Sum(p => p.Extra);

    public bool Passed => LostHighlights == 0 && LostReadingStates == 0 && Missed == 0 && Extra == 0;

    public string Describe()
    {
        var text = new StringBuilder();
        text.AppendLine(
            CultureInfo.InvariantCulture, $"acknowledged highlight changes: {AcknowledgedHighlights:N0}, lost: {LostHighlights:N0}");
        text.AppendLine(
            CultureInfo.InvariantCulture, $"acknowledged reading states: {AcknowledgedReadingStates:N0}, lost: {LostReadingStates:N0}");
        text.AppendLine(
            "| sync kind | pulls checked | highlight changes received | in the database for their ranges | pulls that missed | missed | " +
            "pulls with more than the database | extra |");
        text.AppendLine("|---|---|---|---|---|---|---|---|");
        foreach (var p in Pulls)
        {
            text.AppendLine(
                CultureInfo.InvariantCulture,
                $"| {p.Kind} | {p.Pulls:N0} | {p.Received:N0} | {p.InDatabase:N0} | {p.PullsMissing:N0} | {p.Missed:N0} | " +
                $"{p.PullsWithExtra:N0} | {p.Extra:N0} |");
        }

        text.Append(Passed ? "PASS: nothing lost, nothing missed" : "FAIL: the database and what the devices were told differ");
        return text.ToString();
    }
}

/// <summary>
/// Checks a day's ledger against the database once the run has ended:
/// <list type="bullet">
/// <item>every acknowledged highlight change is stored as acknowledged (a new highlight live, a deletion a tombstone);</item>
/// <item>every acknowledged reading-state put is stored, or a later one replaced it (its position and status at or after the put's
/// time);</item>
/// <item>every ledgered pull received exactly the highlight changes the database holds in the range it covered
/// (after its first position, up to the one its last page returned). A day writes each highlight once
/// (new keys, deletions of keys never stored) and never touches the seed's rows, so no row moves in or out
/// of a range after it was pulled: a row in the range the device did not receive was missed.</item>
/// </list>
/// </summary>
public static class DayVerification
{
    public static async Task<DayVerdict> CheckAsync(
        string connectionString, IReadOnlyList<string> folders, Action<string> progress, CancellationToken cancellationToken)
    {
        await using var connection = new NpgsqlConnection(connectionString);
        await connection.OpenAsync(cancellationToken);
        await ExecuteAsync(connection, """
            CREATE TEMP TABLE day_acked (kind text NOT NULL, user_no bigint NOT NULL, item text COLLATE "C" NOT NULL, detail text NOT NULL);
            CREATE TEMP TABLE day_pulls (user_no bigint NOT NULL, kind text NOT NULL, from_seq bigint NOT NULL, from_id text COLLATE "C" NOT NULL,
                                         to_seq bigint NOT NULL, to_id text COLLATE "C" NOT NULL, received bigint NOT NULL);
            SET work_mem = '256MB';
            """, cancellationToken);
        foreach (var folder in folders)
        {
            foreach (var file in Directory.GetFiles(folder, "acked-*.tsv").Order())
            {
                progress($"loading {file}");
                await CopyAsync(connection, "COPY day_acked FROM STDIN", file, cancellationToken);
            }

            foreach (var file in Directory.GetFiles(folder, "pulls-*.tsv").Order())
            {
                progress($"loading {file}");
                await CopyAsync(connection, "COPY day_pulls FROM STDIN", file, cancellationToken);
            }
        }

        await ExecuteAsync(connection, "ANALYZE day_acked; ANALYZE day_pulls", cancellationToken);
        progress("checking the acknowledged pushes");
        var (highlights, lostHighlights) = await PairAsync(connection, """
            SELECT count(*), count(*) FILTER (WHERE h.id IS NULL OR (a.detail = '1') <> (h.deleted_at IS NOT NULL) OR h.user_no <> a.user_no)
            FROM day_acked a LEFT JOIN highlights h ON h.id = a.item
            WHERE a.kind = 'h'
            """, cancellationToken);
        var (states, lostStates) = await PairAsync(connection, """
            SELECT count(*), count(*) FILTER (WHERE r.user_no IS NULL OR r.position_at < a.detail::timestamptz OR r.status_at < a.detail::timestamptz)
            FROM day_acked a LEFT JOIN reading_states r ON r.user_no = a.user_no AND r.book_no = a.item::bigint
            WHERE a.kind = 'r'
            """, cancellationToken);
        progress("checking every ledgered pull's range against the highlights stored in it");
        var pulls = new List<PullCheck>();
        await using (var command = new NpgsqlCommand("""
            SELECT p.kind, count(*), sum(p.received), sum(d.n),
                   count(*) FILTER (WHERE d.n > p.received), coalesce(sum(d.n - p.received) FILTER (WHERE d.n > p.received), 0),
                   count(*) FILTER (WHERE d.n < p.received), coalesce(sum(p.received - d.n) FILTER (WHERE d.n < p.received), 0)
            FROM day_pulls p
            CROSS JOIN LATERAL (SELECT count(*) AS n FROM highlights h
                                WHERE h.user_no = p.user_no AND (h.seq, h.id) > (p.from_seq, p.from_id) AND (h.seq, h.id) <= (p.to_seq, p.to_id)) d
            GROUP BY p.kind ORDER BY p.kind
            """, connection) { CommandTimeout = 0 })
        await using (var reader = await command.ExecuteReaderAsync(cancellationToken))
        {
            while (await reader.ReadAsync(cancellationToken))
            {
                pulls.Add(new PullCheck(
                    reader.GetString(0), reader.GetInt64(1), (long)reader.GetDecimal(2), (long)reader.GetDecimal(3),
                    reader.GetInt64(4), (long)reader.GetDecimal(5), reader.GetInt64(6), (long)reader.GetDecimal(7)));
            }
        }

        return new DayVerdict(highlights, lostHighlights, states, lostStates, pulls);
    }

    private static async Task CopyAsync(NpgsqlConnection connection, string copy, string file, CancellationToken cancellationToken)
    {
        await using var writer = await connection.BeginTextImportAsync(copy, cancellationToken);
        using var reader = new StreamReader(file, Encoding.UTF8);
        var buffer = new char[1 << 16];
        int read;
        while ((read = await reader.ReadAsync(buffer, cancellationToken)) > 0)
        {
            await writer.WriteAsync(buffer.AsMemory(0, read), cancellationToken);
        }
    }

    private static async Task ExecuteAsync(NpgsqlConnection connection, string sql, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(sql, connection) { CommandTimeout = 0 };
        await command.ExecuteNonQueryAsync(cancellationToken);
    }

    private static async Task<(long All, long Lost)> PairAsync(NpgsqlConnection connection, string sql, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(sql, connection) { CommandTimeout = 0 };
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        await reader.ReadAsync(cancellationToken);
        return (reader.GetInt64(0), reader.GetInt64(1));
    }
}
