using Npgsql;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>Direct counts in a test database, to check what the service returned against the rows themselves.</summary>
public static class DatabaseCounts
{
    public static async Task<long> CountAsync(this PostgresDatabase database, string sql, params object[] parameters)
    {
        await using var command = database.DataSource.CreateCommand(sql);
        foreach (var value in parameters)
        {
            command.Parameters.Add(new NpgsqlParameter { Value = value });
        }

        return (long)(await command.ExecuteScalarAsync(TestTimeout.Token))!;
    }
}
