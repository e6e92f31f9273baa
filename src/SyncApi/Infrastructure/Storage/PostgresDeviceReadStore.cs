using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Reading;
using System.Diagnostics;
using Kobo.Sync.SyncApi.Infrastructure.Storage.Sql;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Storage;

/// <summary>
/// The device reads on PostgreSQL: a user by primary key, and highlights by a primary key range
/// (see <see cref="Queries"/>). One round trip each; the statements are prepared automatically by
/// the data source after their second use. Each read's duration is recorded with the node that
/// served it when <paramref name="metrics"/> is given.
/// </summary>
public sealed class PostgresDeviceReadStore(NpgsqlDataSource dataSource, SyncMetrics? metrics = null) : IDeviceReadStore
{
    public async Task<UserView?> FindUserAsync(UserNo user, CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        using var measured = new MeasuredOperation(metrics, DatabaseOperations.FindUser, connection, started);
        await using var command = new NpgsqlCommand(Queries.FindUser, connection)
        {
            Parameters = { new NpgsqlParameter<long> { TypedValue = user.Value } },
        };
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        return new UserView(
            user.Value,
            reader.GetFieldValue<string>(0),
            reader.GetFieldValue<DateTimeOffset>(2),
            reader.IsDBNull(1) ? null : reader.GetFieldValue<string>(1));
    }

    public async Task<IReadOnlyList<HighlightView>?> ListHighlightsAsync(
        UserNo user, HighlightRange range, int limit, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        var started = Stopwatch.GetTimestamp();
        await using var connection = await dataSource.OpenConnectionAsync(cancellationToken).ConfigureAwait(false);
        using var measured = new MeasuredOperation(metrics, DatabaseOperations.ListHighlights, connection, started);
        await using var command = new NpgsqlCommand(Queries.ListHighlights, connection)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<string> { TypedValue = range.After },
                new NpgsqlParameter<string> { TypedValue = range.Before },
                new NpgsqlParameter<int> { TypedValue = limit },
            },
        };
        await using var reader = await command.ExecuteReaderAsync(cancellationToken).ConfigureAwait(false);
        if (!await reader.ReadAsync(cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        if (reader.IsDBNull(0))
        {
            return [];
        }

        var highlights = new List<HighlightView>(Math.Min(limit, 64));
        do
        {
            highlights.Add(new HighlightView(
                reader.GetFieldValue<string>(0),
                reader.GetFieldValue<long>(1),
                reader.GetFieldValue<string>(2),
                reader.GetFieldValue<int>(3),
                reader.GetFieldValue<int>(4),
                reader.GetFieldValue<string>(5),
                reader.IsDBNull(6) ? null : reader.GetFieldValue<string>(6),
                reader.GetFieldValue<DateTimeOffset>(7),
                reader.GetFieldValue<DateTimeOffset>(8)));
        }
        while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false));

        return highlights;
    }
}
