using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// The stored rows of the fuzzed user and the bystander (highlights, devices, the change counter) as
/// comparable text, read straight from the database: a few hundred rows, so a run is checked whole.
/// </summary>
internal sealed record StoreSnapshot(
    Dictionary<string, string> Highlights, Dictionary<string, string> Devices, Dictionary<long, long> ChangeSeq, List<string> InfiniteTimes)
{
    /// <summary>The reading states of the two users, keyed "{user} reading-state {book}" (<see cref="FuzzLedger.ReadingState"/>).</summary>
    public Dictionary<string, string> ReadingStates { get; init; } = [];

    public static async Task<StoreSnapshot> TakeAsync(NpgsqlDataSource database)
    {
        var highlights = await RowsAsync(database, "SELECT user_no || ' ' || id, row_to_json(h)::text FROM highlights h WHERE user_no IN (1, 2)");
        var devices = await RowsAsync(database, "SELECT user_no || ' ' || device_id, row_to_json(d)::text FROM devices d WHERE user_no IN (1, 2)");
        var sequences = await RowsAsync(database, "SELECT user_no::text, change_seq::text FROM users WHERE user_no IN (1, 2)");
        var infinite = await RowsAsync(database, """
            SELECT id, concat_ws(' ', created_at, modified_at, text_at, range_at, color_at, note_at, deleted_at) FROM highlights
            WHERE user_no IN (1, 2) AND NOT (isfinite(created_at) AND isfinite(modified_at) AND isfinite(coalesce(text_at, now()))
                AND isfinite(coalesce(range_at, now())) AND isfinite(coalesce(color_at, now())) AND isfinite(coalesce(note_at, now())))
            """);
        var readingStates = await RowsAsync(database, "SELECT user_no || ' reading-state ' || book_no, row_to_json(r)::text FROM reading_states r WHERE user_no IN (1, 2)");
        return new StoreSnapshot(
            highlights, devices, sequences.ToDictionary(p => long.Parse(p.Key, System.Globalization.CultureInfo.InvariantCulture), p => long.Parse(p.Value, System.Globalization.CultureInfo.InvariantCulture)),
            [.. infinite.Select(p => $"{p.Key} ({p.Value})")]) { ReadingStates = readingStates };
    }

    /// <summary>Every difference between this snapshot and <paramref name="after"/> that no accepted request explains.</summary>
    public IEnumerable<string> Explain(StoreSnapshot after, FuzzLedger ledger)
    {
        var bystander = $"{FuzzedService.Bystander} ";
        var user = $"{FuzzedService.User} ";
        var unexplained = new List<string>();
        foreach (var key in Highlights.Keys.Union(after.Highlights.Keys))
        {
            var was = Highlights.GetValueOrDefault(key);
            var now = after.Highlights.GetValueOrDefault(key);
            if (was == now)
            {
                continue;
            }

            if (key.StartsWith(bystander, StringComparison.Ordinal) || !ledger.Written.ContainsKey(key[user.Length..]))
            {
                unexplained.Add($"highlight {key} changed though no accepted request wrote it: before {was ?? "(none)"}, after {now ?? "(none)"}");
            }
        }

        foreach (var key in Devices.Keys.Union(after.Devices.Keys))
        {
            var was = Devices.GetValueOrDefault(key);
            var now = after.Devices.GetValueOrDefault(key);
            if (was != now && (key.StartsWith(bystander, StringComparison.Ordinal) || !ledger.Devices.ContainsKey(key[user.Length..])))
            {
                unexplained.Add($"device {OddText.Show(key)} changed though no accepted pull or revocation named it: before {was ?? "(none)"}, after {now ?? "(none)"}");
            }
        }

        foreach (var key in ReadingStates.Keys.Union(after.ReadingStates.Keys))
        {
            var was = ReadingStates.GetValueOrDefault(key);
            var now = after.ReadingStates.GetValueOrDefault(key);
            if (was != now && (key.StartsWith(bystander, StringComparison.Ordinal) || !ledger.Written.ContainsKey(key[user.Length..])))
            {
                unexplained.Add($"{key} changed though no accepted put wrote it: before {was ?? "(none)"}, after {now ?? "(none)"}");
            }
        }

        if (ChangeSeq[FuzzedService.Bystander] != after.ChangeSeq[FuzzedService.Bystander])
        {
            unexplained.Add($"the bystander's change counter moved from {ChangeSeq[FuzzedService.Bystander]} to {after.ChangeSeq[FuzzedService.Bystander]}");
        }

        if (unexplained.Count > 0)
        {
            yield return $"{unexplained.Count} stored change(s) that no accepted request explains, such as:{Environment.NewLine}  "
                + string.Join(Environment.NewLine + "  ", unexplained.Take(10));
        }

        var infinite = after.InfiniteTimes.Except(InfiniteTimes).ToList();
        if (infinite.Count > 0)
        {
            yield return $"{infinite.Count} highlight(s) stored with an infinite time, such as:{Environment.NewLine}  " + string.Join(Environment.NewLine + "  ", infinite.Take(10));
        }
    }

    private static async Task<Dictionary<string, string>> RowsAsync(NpgsqlDataSource database, string sql)
    {
        var rows = new Dictionary<string, string>(StringComparer.Ordinal);
        await using var command = database.CreateCommand(sql);
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        while (await reader.ReadAsync(TestTimeout.Token))
        {
            rows[reader.GetString(0)] = reader.GetString(1);
        }

        return rows;
    }
}
