using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>One statement as pg_stat_statements counts it: calls, rows, and the WAL records it wrote.</summary>
public sealed record CountedStatement(long QueryId, string Query, long Calls, long Rows, long WalRecords);

/// <summary>
/// What the service made one database do, by PostgreSQL's own statistics (pg_stat_statements, which the
/// embedded server loads): this database's statements only, so test classes on other databases do not
/// count; the statistics' own queries and the tests' look-ups of device rows left out.
/// </summary>
public static class DatabaseStatements
{
    public static async Task<Dictionary<long, CountedStatement>> SnapshotAsync(NpgsqlDataSource dataSource)
    {
        await using (var create = dataSource.CreateCommand("CREATE EXTENSION IF NOT EXISTS pg_stat_statements"))
        {
            await create.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        await using var command = dataSource.CreateCommand("""
            SELECT queryid, query, calls, rows, wal_records FROM pg_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
              AND query NOT LIKE '%pg_stat_statements%' AND query NOT LIKE '%acked_seq, last_sync_at FROM devices%'
            """);
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        var statements = new Dictionary<long, CountedStatement>();
        while (await reader.ReadAsync(TestTimeout.Token))
        {
            statements[reader.GetInt64(0)] = new CountedStatement(
                reader.GetInt64(0), reader.GetString(1), reader.GetInt64(2), reader.GetInt64(3), reader.GetInt64(4));
        }

        return statements;
    }

    /// <summary>The statements that ran between two snapshots, with what they did meanwhile.</summary>
    public static List<CountedStatement> Since(this Dictionary<long, CountedStatement> after, Dictionary<long, CountedStatement> before) =>
        [.. after.Values
            .Select(s => before.TryGetValue(s.QueryId, out var b) ? s with { Calls = s.Calls - b.Calls, Rows = s.Rows - b.Rows, WalRecords = s.WalRecords - b.WalRecords } : s)
            .Where(s => s.Calls > 0)];
}
