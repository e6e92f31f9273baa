using System.Globalization;
using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// The ETag of a book's annotation set as the service answered it: <c>W/"kobosync-{user}-{book}-{lastSeq}-{located}"</c>.
/// A device keeps the ETag of its last download byte for byte and sends it back in <c>checkforchanges</c>
/// (calibre-web-nextgen #1848). So an ETag of this form for the caller's user and the book says that the
/// device's set of the book came from this service; any other (Kobo's own, none) says nothing about it.
/// It changes with every change of the book's highlights (a new change number) and with their count.
/// </summary>
public static class KoboAnnotationETags
{
    public static string For(UserNo user, KoboBookState state) =>
        string.Create(CultureInfo.InvariantCulture, $"W/\"{Prefix(user, state.Book)}{state.LastSeq}-{state.Located}\"");

    /// <summary>True when <paramref name="etag"/> is one this service gave for the user's book.</summary>
    public static bool IsOurs(UserNo user, BookNo book, string? etag) =>
        etag is not null && etag.StartsWith("W/\"" + Prefix(user, book), StringComparison.Ordinal);

    private static string Prefix(UserNo user, BookNo book) => string.Create(CultureInfo.InvariantCulture, $"kobosync-{user}-{book}-");
}
