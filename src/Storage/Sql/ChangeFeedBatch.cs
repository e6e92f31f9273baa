using Kobo.Sync.Domain.Ids;
using Npgsql;

namespace Kobo.Sync.Storage.Sql;

/// <summary>
/// The pieces of a pull's one-round-trip batch, shared by device sync and library sync: statements of
/// the user alone (the committed sequence, purge horizons), keyset pages after a stream's position, and
/// the reading of their answers in batch order.
/// </summary>
public static class ChangeFeedBatch
{
    /// <summary>A statement whose one parameter is $1 user_no.</summary>
    public static NpgsqlBatchCommand OfUser(string sql, UserNo user) => new(sql)
    {
        Parameters = { new NpgsqlParameter<long> { TypedValue = user.Value } },
    };

    /// <summary>
    /// A keyset page: $1 user_no, $2 seq and $3 key (the stream's position, exclusive), $4 limit, and
    /// $5 the page's byte budget for the streams whose statement cuts by size.
    /// </summary>
    public static NpgsqlBatchCommand Page<TKey>(string sql, UserNo user, long seq, TKey key, int limit, long? maxBytes = null)
    {
        var command = new NpgsqlBatchCommand(sql)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<long> { TypedValue = seq },
                new NpgsqlParameter<TKey> { TypedValue = key },
                new NpgsqlParameter<int> { TypedValue = limit },
            },
        };
        if (maxBytes is { } bytes)
        {
            command.Parameters.Add(new NpgsqlParameter<long> { TypedValue = bytes });
        }

        return command;
    }

    /// <summary>The next answer's rows, each as its first column (seq) and the rest read by <paramref name="read"/>.</summary>
    public static async Task<List<(long Seq, T Row)>> ReadPageAsync<T>(
        NpgsqlDataReader reader, Func<NpgsqlDataReader, T> read, CancellationToken cancellationToken)
    {
        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        var rows = new List<(long, T)>();
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            rows.Add((reader.GetInt64(0), read(reader)));
        }

        return rows;
    }

    /// <summary>The next answer's one number (a purge horizon).</summary>
    public static async Task<long> ReadNumberAsync(NpgsqlDataReader reader, CancellationToken cancellationToken)
    {
        await reader.NextResultAsync(cancellationToken).ConfigureAwait(false);
        await reader.ReadAsync(cancellationToken).ConfigureAwait(false);
        return reader.GetInt64(0);
    }
}
