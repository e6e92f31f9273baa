using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.Storage.Stores;

/// <summary>A reading state as every store that reads one reads it: the reading-state, sync, Kobo library and KOReader stores.</summary>
public static class ReadingStateRows
{
    /// <summary>
    /// A state read from <see cref="ReadingStateQueries.StateColumns"/> starting at <paramref name="first"/>; null when no group is stored.
    /// </summary>
    public static ReadingState? Read(NpgsqlDataReader reader, int first, BookNo book)
    {
        var position = reader.IsDBNull(first) ? null : new ReadingPosition(
            reader.GetDouble(first),
            reader.IsDBNull(first + 1) ? null : reader.GetString(first + 1),
            reader.GetFieldValue<DateTimeOffset>(first + 2));
        var status = reader.IsDBNull(first + 3) ? null : new ReadingStatusMark(
            reader.GetString(first + 3), reader.GetFieldValue<DateTimeOffset>(first + 4));
        var statistics = reader.IsDBNull(first + 5) ? null : new ReadingStatistics(
            reader.GetInt32(first + 5), reader.GetFieldValue<DateTimeOffset>(first + 6));
        return position is null && status is null && statistics is null ? null : new ReadingState(book, position, status, statistics);
    }
}
