using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Storage.Coalescing;
using Kobo.Sync.Storage.Sql;
using Kobo.Sync.Storage.Telemetry;
using Npgsql;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// The device reads on PostgreSQL: a user by primary key, and highlights by a primary key range
/// (see <see cref="DeviceReadQueries"/>). One statement each, prepared automatically by the data source after
/// its second use; concurrent reads share round trips through the <see cref="ReadCoalescer"/>.
/// <see cref="ResilientDeviceReadStore"/> runs each in its storage pipeline. These reads
/// tolerate replica lag (a device re-reads on its next sync; pages are keyed, not offset), so the
/// coalescer sends them to the read data source (<c>Storage:ReadConnectionString</c>: standbys first).
/// </summary>
public sealed class PostgresDeviceReadStore(ReadCoalescer coalescer) : IDeviceReadStore
{
    public Task<UserView?> FindUserAsync(UserNo user, CancellationToken cancellationToken) =>
        coalescer.ReadAsync(new FindUserRead(user), cancellationToken);

    public Task<IReadOnlyList<HighlightView>?> ListHighlightsAsync(
        UserNo user, HighlightRange range, int limit, CancellationToken cancellationToken)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(limit, 1);
        return coalescer.ReadAsync(new ListHighlightsRead(user, range, limit), cancellationToken);
    }

    private sealed class FindUserRead(UserNo user) : CoalescedRead<UserView?>
    {
        public override string Operation => DatabaseOperations.FindUser;

        public override NpgsqlBatchCommand CreateCommand() => new(DeviceReadQueries.FindUser)
        {
            Parameters = { new NpgsqlParameter<long> { TypedValue = user.Value } },
        };

        protected override async Task<UserView?> ReadResultAsync(NpgsqlDataReader reader, CancellationToken cancellationToken)
        {
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
    }

    private sealed class ListHighlightsRead(UserNo user, HighlightRange range, int limit)
        : CoalescedRead<IReadOnlyList<HighlightView>?>
    {
        public override string Operation => DatabaseOperations.ListHighlights;

        public override NpgsqlBatchCommand CreateCommand() => new(DeviceReadQueries.ListHighlights)
        {
            Parameters =
            {
                new NpgsqlParameter<long> { TypedValue = user.Value },
                new NpgsqlParameter<string> { TypedValue = range.After },
                new NpgsqlParameter<string> { TypedValue = range.Before },
                new NpgsqlParameter<int> { TypedValue = limit },
            },
        };

        protected override async Task<IReadOnlyList<HighlightView>?> ReadResultAsync(
            NpgsqlDataReader reader, CancellationToken cancellationToken)
        {
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
                    reader.GetFieldValue<DateTimeOffset>(8),
                    reader.IsDBNull(9) ? null : reader.GetFieldValue<string>(9)));
            }
            while (await reader.ReadAsync(cancellationToken).ConfigureAwait(false));

            return highlights;
        }
    }
}
