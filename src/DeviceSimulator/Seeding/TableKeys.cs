using System.Globalization;
using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>
/// The keys and indexes of the seeded tables, as the migrations made them: dropped before the bulk
/// load (building a B-tree once, sorted, is far cheaper than inserting into it row by row) and
/// re-created afterwards from their own definitions, so the result is the schema a normal insert
/// leaves. The definitions are kept in a table until they are restored, so an interrupted seed's
/// next run restores them rather than forgetting them.
/// </summary>
internal static class TableKeys
{
    public static readonly string[] Tables = ["users", "books", "users_books", "highlights"];

    private const string Stash = "simulator_seed_keys";

    private sealed record Key(string Table, string Name, bool IsConstraint, string Definition, int Order);

    public static async Task DropAsync(NpgsqlConnection connection, CancellationToken cancellationToken)
    {
        await ExecuteAsync(
            connection, $"CREATE TABLE IF NOT EXISTS {Stash} (tbl text, name text, is_constraint bool, definition text, ord int)",
            cancellationToken);
        var keys = await ReadCurrentAsync(connection, cancellationToken);
        foreach (var key in keys)
        {
            await using var save = new NpgsqlCommand($"INSERT INTO {Stash} VALUES ($1, $2, $3, $4, $5)", connection);
            save.Parameters.Add(new NpgsqlParameter<string> { TypedValue = key.Table });
            save.Parameters.Add(new NpgsqlParameter<string> { TypedValue = key.Name });
            save.Parameters.Add(new NpgsqlParameter<bool> { TypedValue = key.IsConstraint });
            save.Parameters.Add(new NpgsqlParameter<string> { TypedValue = key.Definition });
            save.Parameters.Add(new NpgsqlParameter<int> { TypedValue = key.Order });
            await save.ExecuteNonQueryAsync(cancellationToken);
        }

        // Foreign keys first, then the keys and indexes they lean on.
        foreach (var key in keys.OrderByDescending(k => k.Order))
        {
            var sql = key.IsConstraint
                ? $"ALTER TABLE {key.Table} DROP CONSTRAINT {Quote(key.Name)}"
                : $"DROP INDEX {Quote(key.Name)}";
            await ExecuteAsync(connection, sql, cancellationToken);
        }
    }

    public static async Task RestoreAsync(NpgsqlConnection connection, CancellationToken cancellationToken, SeedProgress? progress = null)
    {
        var keys = new List<Key>();
        await using (var read = new NpgsqlCommand(
            $"SELECT tbl, name, is_constraint, definition, ord FROM {Stash} ORDER BY ord, name", connection))
        await using (var reader = await read.ExecuteReaderAsync(cancellationToken))
        {
            while (await reader.ReadAsync(cancellationToken))
            {
                keys.Add(new Key(reader.GetString(0), reader.GetString(1), reader.GetBoolean(2), reader.GetString(3), reader.GetInt32(4)));
            }
        }

        for (var i = 0; i < keys.Count; i++)
        {
            var key = keys[i];

            // A restore interrupted half-way left some keys built: those are kept, not built twice.
            if (await ExistsAsync(connection, key, cancellationToken))
            {
                continue;
            }

            progress?.Step(string.Create(CultureInfo.InvariantCulture, $"building key {key.Name}, {i + 1} of {keys.Count}"));
            var sql = key.IsConstraint
                ? $"ALTER TABLE {key.Table} ADD CONSTRAINT {Quote(key.Name)} {key.Definition}"
                : key.Definition;
            await ExecuteAsync(connection, sql, cancellationToken);
        }

        await ExecuteAsync(connection, $"DROP TABLE {Stash}", cancellationToken);
    }

    /// <summary>True when an earlier seed stopped between dropping and restoring the keys.</summary>
    public static async Task<bool> HasStashAsync(NpgsqlConnection connection, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand($"SELECT to_regclass('{Stash}') IS NOT NULL", connection);
        return (bool)(await command.ExecuteScalarAsync(cancellationToken))!;
    }

    private static async Task<List<Key>> ReadCurrentAsync(NpgsqlConnection connection, CancellationToken cancellationToken)
    {
        // Constraints backed by an index or pointing at one (p, u, x, f), then plain indexes.
        const string sql = """
            SELECT c.conrelid::regclass::text, c.conname, true, pg_get_constraintdef(c.oid),
                   CASE c.contype WHEN 'f' THEN 2 ELSE 0 END
            FROM pg_constraint c
            WHERE (c.conrelid = ANY ($1::regclass[]) AND c.contype IN ('p', 'u', 'x', 'f'))
               OR (c.contype = 'f' AND c.confrelid = ANY ($1::regclass[]))
            UNION ALL
            SELECT i.indrelid::regclass::text, ic.relname, false, pg_get_indexdef(i.indexrelid), 1
            FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
            WHERE i.indrelid = ANY ($1::regclass[])
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid)
            """;
        var keys = new List<Key>();
        await using var command = new NpgsqlCommand(sql, connection);
        command.Parameters.Add(new NpgsqlParameter<string[]> { TypedValue = Tables });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken);
        while (await reader.ReadAsync(cancellationToken))
        {
            keys.Add(new Key(reader.GetString(0), reader.GetString(1), reader.GetBoolean(2), reader.GetString(3), reader.GetInt32(4)));
        }

        return keys;
    }

    private static async Task<bool> ExistsAsync(NpgsqlConnection connection, Key key, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(
            key.IsConstraint
                ? "SELECT EXISTS (SELECT 1 FROM pg_constraint WHERE conname = $1 AND conrelid = $2::regclass)"
                : "SELECT EXISTS (SELECT 1 FROM pg_class WHERE relname = $1 AND relkind = 'i' AND relnamespace = " +
                    "current_schema()::regnamespace) AND $2 <> ''",
            connection);
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = key.Name });
        command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = key.Table });
        return (bool)(await command.ExecuteScalarAsync(cancellationToken))!;
    }

    private static string Quote(string name) => "\"" + name.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";

    private static async Task ExecuteAsync(NpgsqlConnection connection, string sql, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(sql, connection) { CommandTimeout = 0 };
        await command.ExecuteNonQueryAsync(cancellationToken);
    }
}
