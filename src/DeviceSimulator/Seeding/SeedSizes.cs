using Npgsql;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>Disk bytes of one seeded table: the table itself (with its TOAST) and each of its indexes.</summary>
public sealed record TableSize(string Table, long Rows, long TableBytes, IReadOnlyList<(string Index, long Bytes)> Indexes)
{
    public long IndexBytes => Indexes.Sum(i => i.Bytes);

    /// <summary>Table and indexes per row: what one more document of this kind costs on disk.</summary>
    public double BytesPerRow => Rows == 0 ? 0 : (double)(TableBytes + IndexBytes) / Rows;
}

/// <summary>
/// What a seeded data set takes on disk (<c>pg_table_size</c>, <c>pg_relation_size</c> of each index),
/// per table, per index and per document: the figures the scale benchmark extrapolates its disk
/// estimate from.
/// </summary>
public static class SeedSizes
{
    /// <param name="rowsOf">The rows of each table, as the seed wrote them (counting 70 M rows again would take minutes).</param>
    public static async Task<IReadOnlyList<TableSize>> MeasureAsync(
        NpgsqlDataSource dataSource, Func<string, long> rowsOf, CancellationToken cancellationToken)
    {
        var sizes = new List<TableSize>();
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken);
        foreach (var table in TableKeys.Tables)
        {
            long bytes;
            await using (var command = new NpgsqlCommand($"SELECT pg_table_size('{table}')", connection))
            {
                bytes = (long)(await command.ExecuteScalarAsync(cancellationToken))!;
            }

            var indexes = new List<(string, long)>();
            await using (var command = new NpgsqlCommand(
                "SELECT c.relname, pg_relation_size(c.oid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = " +
                "$1::regclass ORDER BY c.relname", connection))
            {
                command.Parameters.Add(new NpgsqlParameter<string> { TypedValue = table });
                await using var reader = await command.ExecuteReaderAsync(cancellationToken);
                while (await reader.ReadAsync(cancellationToken))
                {
                    indexes.Add((reader.GetString(0), reader.GetInt64(1)));
                }
            }

            sizes.Add(new TableSize(table, rowsOf(table), bytes, indexes));
        }

        return sizes;
    }
}
