using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// What every instance polls to learn of revocations made anywhere (the web host's <c>DeviceRevocationRefresher</c>):
/// the devices and the Kobo links revoked since a time. Each read gives its pooled connection back before the
/// next, so a poll never holds two connections.
/// </summary>
public sealed class PostgresRevocationReads(NpgsqlDataSource dataSource)
{
    /// <summary>
    /// Each device revoked at or after <paramref name="since"/>, handed to <paramref name="revoked"/>; the latest revocation time read, or
    /// <paramref name="since"/>.
    /// </summary>
    public async Task<DateTimeOffset> RevokedDevicesSinceAsync(
        DateTimeOffset since, Action<UserNo, string, DateTimeOffset> revoked, CancellationToken cancellationToken)
    {
        var newest = since;
        await using var command = dataSource.CreateCommand(DeviceQueries.RevokedDevices);
        command.Parameters.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = since.ToUniversalTime() });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            var revokedAt = reader.GetFieldValue<DateTimeOffset>(2);
            revoked(new UserNo(reader.GetInt64(0)), reader.GetString(1), revokedAt);
            newest = revokedAt > newest ? revokedAt : newest;
        }

        return newest;
    }

    /// <summary>
    /// The secret hashes of the links revoked at or after <paramref name="since"/>, with the newest revocation time among them.
    /// </summary>
    public async Task<(List<byte[]> Hashes, DateTimeOffset? Newest)> RevokedLinksSinceAsync(
        DateTimeOffset since, CancellationToken cancellationToken)
    {
        await using var command = dataSource.CreateCommand(KoboLinkQueries.RevokedSince);
        command.Parameters.Add(new NpgsqlParameter<DateTimeOffset> { TypedValue = since.ToUniversalTime() });
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        var hashes = new List<byte[]>();
        DateTimeOffset? newest = null;
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            hashes.Add(reader.GetFieldValue<byte[]>(0));
            var revokedAt = reader.GetFieldValue<DateTimeOffset>(1);
            newest = newest is { } known && known > revokedAt ? known : revokedAt;
        }

        return (hashes, newest);
    }
}
