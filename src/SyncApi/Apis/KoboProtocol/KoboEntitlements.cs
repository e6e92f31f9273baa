using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// A library book in the Kobo store's shapes, with the fields calibre-web fills: the
/// <c>BookEntitlement</c> (the device's right to the book; <c>IsRemoved</c> takes it off the device)
/// and the <c>BookMetadata</c> (what the library shows, and where to download the file). Every id of
/// the book is its <see cref="BookUuid"/>. Written straight to UTF-8: a page holds a hundred of them.
/// </summary>
internal static class KoboEntitlements
{
    /// <summary>The category and genre calibre-web gives every book.</summary>
    private const string DefaultCategory = "00000000-0000-0000-0000-000000000001";

    /// <summary>
    /// One sync item: <c>NewEntitlement</c> for a book the user owns, <c>ChangedEntitlement</c> (removed) for
    /// one they no longer do, each with the book's <c>ReadingState</c> beside its entitlement and metadata
    /// (calibre-web and Komga put it there): the stored state, or a never-opened book's. A device learns a
    /// finished book as finished from the item that brings it, on the same page.
    /// </summary>
    public static void WriteSyncItem(Utf8JsonWriter json, LibraryBook book, string now, Uri? contentBase)
    {
        json.WriteStartObject();
        json.WriteStartObject(book.Removed ? "ChangedEntitlement" : "NewEntitlement");
        json.WritePropertyName("BookEntitlement");
        WriteEntitlement(json, book, now);
        json.WritePropertyName("BookMetadata");
        WriteMetadata(json, book, contentBase);
        json.WritePropertyName("ReadingState");
        KoboReadingStates.Write(json, book.Book, book.ReadingState, book.AcquiredAt);
        json.WriteEndObject();
        json.WriteEndObject();
    }

    public static void WriteEntitlement(Utf8JsonWriter json, LibraryBook book, string now)
    {
        var uuid = BookUuid.Format(book.Book);
        json.WriteStartObject();
        json.WriteString("Accessibility", "Full");
        json.WriteStartObject("ActivePeriod");
        json.WriteString("From", now);
        json.WriteEndObject();
        json.WriteString("Created", KoboJson.Timestamp(book.AcquiredAt));
        json.WriteString("CrossRevisionId", uuid);
        json.WriteString("Id", uuid);
        json.WriteBoolean("IsHiddenFromArchive", false);
        json.WriteBoolean("IsLocked", false);
        json.WriteBoolean("IsRemoved", book.Removed);
        json.WriteString("LastModified", KoboJson.Timestamp(book.ModifiedAt));
        json.WriteString("OriginCategory", "Imported");
        json.WriteString("RevisionId", uuid);
        json.WriteString("Status", "Active");
        json.WriteEndObject();
    }

    public static void WriteMetadata(Utf8JsonWriter json, LibraryBook book, Uri? contentBase)
    {
        var uuid = BookUuid.Format(book.Book);
        json.WriteStartObject();
        json.WriteStartArray("Categories");
        json.WriteStringValue(DefaultCategory);
        json.WriteEndArray();
        json.WriteStartArray("ContributorRoles");
        if (book.Author is { Length: > 0 } role)
        {
            json.WriteStartObject();
            json.WriteString("Name", role);
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteStartArray("Contributors");
        if (book.Author is { Length: > 0 } author)
        {
            json.WriteStringValue(author);
        }

        json.WriteEndArray();
        json.WriteString("CoverImageId", uuid);
        json.WriteString("CrossRevisionId", uuid);
        json.WriteStartObject("CurrentDisplayPrice");
        json.WriteString("CurrencyCode", "USD");
        json.WriteNumber("TotalAmount", 0);
        json.WriteEndObject();
        json.WriteStartObject("CurrentLoveDisplayPrice");
        json.WriteNumber("TotalAmount", 0);
        json.WriteEndObject();
        json.WriteNull("Description");
        json.WriteStartArray("DownloadUrls");
        if (DownloadUrl(contentBase, book) is { } download)
        {
            // calibre-web's get_metadata and komga's DownloadUrlDto: Format, Size, Url, Platform; no DrmType.
            json.WriteStartObject();
            json.WriteString("Format", download.Format);
            json.WriteNumber("Size", download.Size);
            json.WriteString("Url", download.Url);
            json.WriteString("Platform", "Generic");
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteString("EntitlementId", uuid);
        json.WriteStartArray("ExternalIds");
        json.WriteEndArray();
        json.WriteString("Genre", DefaultCategory);
        json.WriteBoolean("IsEligibleForKoboLove", false);
        json.WriteBoolean("IsInternetArchive", false);
        json.WriteBoolean("IsPreOrder", false);
        json.WriteBoolean("IsSocialEnabled", true);
        json.WriteString("Language", book.Language is { Length: > 0 } language ? language : "en");
        json.WriteStartObject("PhoneticPronunciations");
        json.WriteEndObject();
        json.WriteStartObject("Publisher");
        json.WriteString("Imprint", string.Empty);
        json.WriteNull("Name");
        json.WriteEndObject();
        json.WriteString("RevisionId", uuid);
        json.WriteString("Title", book.Title);
        json.WriteString("WorkId", uuid);
        json.WriteEndObject();
    }

    /// <summary>
    /// Where the device downloads the book: the content origin's address of the file the catalogue states
    /// (its KEPUB when it has one, else its EPUB3), with that format and size; null without an origin or
    /// without a stated file.
    /// </summary>
    public static BookDownload? DownloadUrl(Uri? contentBase, LibraryBook book) =>
        contentBase is not null && book.File is { } file
            ? new BookDownload(file.Format, file.Size, KoboContentOrigin.FileUrl(contentBase, book.Book, file.Format))
            : null;
}
