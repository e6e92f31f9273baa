using System.Text.Json;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// A collection as the Kobo store's tag, in library sync's items, with the fields calibre-web writes
/// (cps/kobo.py, <c>sync_shelves</c> and <c>create_kobo_tag</c>): <c>NewTag</c> for a collection the
/// device has never received, <c>ChangedTag</c> for one it has, both with the whole <c>Tag</c>
/// (<c>Created</c>, <c>Id</c>, <c>Items</c> of <c>ProductRevisionTagItem</c>, <c>LastModified</c>,
/// <c>Name</c>, <c>Type: "UserTag"</c>), and <c>DeletedTag</c> (<c>Tag: {Id, LastModified}</c>) for a
/// deleted one, as calibre-web sends one for every shelf deleted since: the device may hold it even when it
/// was created after its last sync (the device made it itself), and one it does not hold is ignored.
/// </summary>
internal static class KoboTags
{
    public const string ItemType = "ProductRevisionTagItem";

    /// <param name="seenThrough">The collection position the device came with (<c>LibraryPage.CollectionsSeenThrough</c>).</param>
    public static void WriteSyncItem(Utf8JsonWriter json, Collection collection, long seenThrough)
    {
        if (collection.Deleted)
        {
            json.WriteStartObject();
            json.WriteStartObject("DeletedTag");
            json.WriteStartObject("Tag");
            json.WriteString("Id", CollectionValidation.Format(collection.Id));
            json.WriteString("LastModified", KoboJson.Timestamp(collection.ModifiedAt));
            json.WriteEndObject();
            json.WriteEndObject();
            json.WriteEndObject();
            return;
        }

        json.WriteStartObject();
        json.WriteStartObject(collection.CreatedSeq > seenThrough ? "NewTag" : "ChangedTag");
        json.WriteStartObject("Tag");
        json.WriteString("Created", KoboJson.Timestamp(collection.CreatedAt));
        json.WriteString("Id", CollectionValidation.Format(collection.Id));
        json.WriteStartArray("Items");
        foreach (var book in collection.Books)
        {
            json.WriteStartObject();
            json.WriteString("RevisionId", BookUuid.Format(book));
            json.WriteString("Type", ItemType);
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteString("LastModified", KoboJson.Timestamp(collection.ModifiedAt));
        json.WriteString("Name", collection.Name);
        json.WriteString("Type", "UserTag");
        json.WriteEndObject();
        json.WriteEndObject();
        json.WriteEndObject();
    }
}
