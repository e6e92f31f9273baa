using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Grpc.Support;

public sealed record StoredUser(long UserNo, string Name, string? Country, DateTimeOffset CreatedAt);

public sealed record StoredHighlight(
    string Id, long BookNo, string Text, int Start, int Length, string Color, string? Note, DateTimeOffset CreatedAt, DateTimeOffset ModifiedAt);

/// <summary>Rows read straight from a test database, for what the service should answer.</summary>
public static class StoredRows
{
    public static async Task<StoredUser> UserAsync(this PostgresDatabase database, long userNo)
    {
        await using var command = database.DataSource.CreateCommand("SELECT name, country, created_at FROM users WHERE user_no = $1");
        command.Parameters.Add(new Npgsql.NpgsqlParameter<long> { TypedValue = userNo });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        Assert.True(await reader.ReadAsync(TestTimeout.Token), $"user {userNo} is in the demo data");
        return new StoredUser(
            userNo, reader.GetString(0), reader.IsDBNull(1) ? null : reader.GetString(1), reader.GetFieldValue<DateTimeOffset>(2));
    }

    /// <summary>A user's highlights (in one book when <paramref name="bookNo"/> is given) in id order.</summary>
    public static async Task<IReadOnlyList<StoredHighlight>> HighlightsAsync(this PostgresDatabase database, long userNo, long? bookNo = null)
    {
        await using var command = database.DataSource.CreateCommand("""
            SELECT id, book_no, text, start, length, color, note, created_at, modified_at
            FROM highlights WHERE user_no = $1 AND ($2::bigint IS NULL OR book_no = $2) ORDER BY id
            """);
        command.Parameters.Add(new Npgsql.NpgsqlParameter<long> { TypedValue = userNo });
        command.Parameters.Add(new Npgsql.NpgsqlParameter { Value = (object?)bookNo ?? DBNull.Value, NpgsqlDbType = NpgsqlTypes.NpgsqlDbType.Bigint });
        await using var reader = await command.ExecuteReaderAsync(TestTimeout.Token);
        var rows = new List<StoredHighlight>();
        while (await reader.ReadAsync(TestTimeout.Token))
        {
            rows.Add(new StoredHighlight(
                reader.GetString(0), reader.GetInt64(1), reader.GetString(2), reader.GetInt32(3), reader.GetInt32(4),
                reader.GetString(5), reader.IsDBNull(6) ? null : reader.GetString(6),
                reader.GetFieldValue<DateTimeOffset>(7), reader.GetFieldValue<DateTimeOffset>(8)));
        }

        return rows;
    }
}
