using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>
/// The seed's own bookkeeping inside the target database, so an interrupted seed can be resumed:
/// one row with the parameters of the seed in progress, and one row per committed chunk of users,
/// written in the chunk's own transaction (a chunk is there whole or not at all). Both tables are
/// dropped once the keys are rebuilt and the tables analysed.
/// </summary>
internal static class SeedMarker
{
    /// <summary>The chunk number of the catalogue (books), committed before any users.</summary>
    public const int BooksChunk = -1;

    private const string RunTable = "simulator_seed_run";
    private const string ChunksTable = "simulator_seed_chunks";

    public static async Task<SeedParameters?> ReadAsync(NpgsqlConnection connection, CancellationToken cancellationToken)
    {
        await using (var exists = new NpgsqlCommand($"SELECT to_regclass('{RunTable}') IS NOT NULL", connection))
        {
            if (!(bool)(await exists.ExecuteScalarAsync(cancellationToken))!)
            {
                return null;
            }
        }

        await using var read = new NpgsqlCommand(
            // A run table from before the shape was kept has none: shape 1.
            $"SELECT seed, users, books, heaviest, chunk_users, keys_during_load, coalesce((to_jsonb(r) ->> 'shape')::int, 1) " +
            $"FROM {RunTable} r", connection);
        await using var reader = await read.ExecuteReaderAsync(cancellationToken);
        return await reader.ReadAsync(cancellationToken)
            ? new SeedParameters(
                reader.GetInt32(0), reader.GetInt32(1), reader.GetInt32(2), reader.GetInt32(3),
                reader.GetInt32(4), reader.GetBoolean(5), reader.GetInt32(6))
            : null;
    }

    public static async Task StartAsync(NpgsqlConnection connection, SeedParameters parameters, CancellationToken cancellationToken)
    {
        await ExecuteAsync(connection, $"""
            DROP TABLE IF EXISTS {RunTable}, {ChunksTable};
            CREATE TABLE {ChunksTable} (chunk int PRIMARY KEY, committed_at timestamptz NOT NULL DEFAULT now());
            CREATE TABLE {RunTable} (seed int NOT NULL, users int NOT NULL, books int NOT NULL, heaviest int NOT NULL,
                                     chunk_users int NOT NULL, keys_during_load bool NOT NULL, shape int NOT NULL, started_at timestamptz NOT NULL DEFAULT now());
            """, cancellationToken);
        await using var insert = new NpgsqlCommand(
            $"INSERT INTO {RunTable} (seed, users, books, heaviest, chunk_users, keys_during_load, shape) VALUES ($1, $2, $3, $4, $5, " +
            $"$6, $7)", connection);
        insert.Parameters.Add(new NpgsqlParameter<int> { TypedValue = parameters.Seed });
        insert.Parameters.Add(new NpgsqlParameter<int> { TypedValue = parameters.Users });
        insert.Parameters.Add(new NpgsqlParameter<int> { TypedValue = parameters.Books });
        insert.Parameters.Add(new NpgsqlParameter<int> { TypedValue = parameters.HeaviestUserHighlights });
        insert.Parameters.Add(new NpgsqlParameter<int> { TypedValue = parameters.ChunkUsers });
        insert.Parameters.Add(new NpgsqlParameter<bool> { TypedValue = parameters.KeysDuringLoad });
        insert.Parameters.Add(new NpgsqlParameter<int> { TypedValue = parameters.Shape });
        await insert.ExecuteNonQueryAsync(cancellationToken);
    }

    public static async Task<HashSet<int>> CommittedChunksAsync(NpgsqlConnection connection, CancellationToken cancellationToken)
    {
        var chunks = new HashSet<int>();
        await using var read = new NpgsqlCommand($"SELECT chunk FROM {ChunksTable}", connection);
        await using var reader = await read.ExecuteReaderAsync(cancellationToken);
        while (await reader.ReadAsync(cancellationToken))
        {
            chunks.Add(reader.GetInt32(0));
        }

        return chunks;
    }

    /// <summary>Records <paramref name="chunk"/> as committed, inside the transaction that wrote its rows.</summary>
    public static void Commit(NpgsqlConnection connection, int chunk)
    {
        using var insert = new NpgsqlCommand($"INSERT INTO {ChunksTable} (chunk) VALUES ($1)", connection);
        insert.Parameters.Add(new NpgsqlParameter<int> { TypedValue = chunk });
        insert.ExecuteNonQuery();
    }

    public static Task DropAsync(NpgsqlConnection connection, CancellationToken cancellationToken) =>
        ExecuteAsync(connection, $"DROP TABLE IF EXISTS {RunTable}, {ChunksTable}", cancellationToken);

    private static async Task ExecuteAsync(NpgsqlConnection connection, string sql, CancellationToken cancellationToken)
    {
        await using var command = new NpgsqlCommand(sql, connection);
        await command.ExecuteNonQueryAsync(cancellationToken);
    }
}
