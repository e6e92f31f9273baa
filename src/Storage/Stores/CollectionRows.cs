using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Sql;
using Npgsql;

namespace Kobo.Sync.Storage.Stores;

/// <summary>
/// The collection stream as every store that pulls it reads it: the sync store, the Kobo library store and the collection store.
/// </summary>
public static class CollectionRows
{
    /// <summary>
    /// The collection stream of a pull (<see cref="CollectionQueries.Changes"/>) after <paramref name="after"/>'s
    /// collection position: for the device pull and Kobo library sync alike.
    /// </summary>
    public static NpgsqlBatchCommand Changes(UserNo user, SyncPosition after, int limit, long maxBytes) =>
        ChangeFeedBatch.Page(CollectionQueries.Changes, user, after.CollectionSeq, after.CollectionId, limit, maxBytes);

    /// <summary>A collection read from the view's columns starting at <paramref name="first"/>.</summary>
    public static Collection Read(NpgsqlDataReader reader, int first) => new(
        reader.GetGuid(first),
        reader.GetString(first + 1),
        reader.GetBoolean(first + 2),
        [.. reader.GetFieldValue<long[]>(first + 5).Select(b => new BookNo(b))],
        reader.GetFieldValue<DateTimeOffset>(first + 3),
        reader.GetFieldValue<DateTimeOffset>(first + 4))
    {
        CreatedSeq = reader.GetInt64(first + 6),
    };
}
