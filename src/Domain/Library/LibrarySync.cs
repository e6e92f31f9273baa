using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Library;

/// <summary>
/// Library sync for reading devices that pull their library alone (the Kobo protocol): a delta pull of
/// the user's ownership, reading state and collection changes in pages (highlights travel apart), positions carried in the service's own
/// signed sync token (<see cref="SyncTokens"/>, of kind <see cref="SyncTokenKind.KoboLibrary"/>, so a native change feed token never opens
/// here), wrapped with <see cref="TokenPrefix"/> so that it is told apart from the tokens other servers hand out. A missing, foreign,
/// altered, expired, another user's or another kind's token starts a full sync: never an error, since a device that cannot sync cannot
/// recover on its own. A page ends at <see cref="PageSize"/> items, or earlier when the next would take it past the
/// <see cref="PageBudget"/>.
/// </summary>
public sealed class LibrarySync(ILibraryStore store, SyncTokens tokens, PageBudget budget)
{
    /// <summary>Marks a token as this service's; any other token (the store's contain a '.') is foreign.</summary>
    public const string TokenPrefix = "kobosync1:";

    /// <summary>Items per page, as the Kobo store and calibre-web page them.</summary>
    public const int PageSize = 100;

    /// <summary>The fixed fields of a book's entitlement and metadata as the Kobo protocol writes them (about 1.5 KB).</summary>
    public const int BookOverheadBytes = 1_536;

    /// <summary>The fixed fields of a reading state as the Kobo protocol writes them.</summary>
    public const int ReadingStateOverheadBytes = 512;

    /// <summary>The fixed fields of a tag as the Kobo protocol writes them.</summary>
    public const int TagOverheadBytes = 256;

    /// <summary>One book of a tag as the Kobo protocol writes it: <c>{"RevisionId":"(uuid)","Type":"ProductRevisionTagItem"}</c>.</summary>
    public const int TagItemBytes = 80;

    public async Task<LibraryPage> PullAsync(DeviceCaller caller, string? syncToken, CancellationToken cancellationToken)
    {
        var user = caller.User;
        var position = Resolve(user, syncToken);
        if (!position.IsStart && position.PagesInSync == 0)
        {
            // A new sync from a token at or past the user's committed sequence in every library stream has
            // nothing to fetch (as DeviceSync's pull): one indexed read answers it.
            var committed = await store.ReadCommittedSeqAsync(user, cancellationToken).ConfigureAwait(false)
                ?? throw ResourceNotFoundException.UnknownUser(user);
            if (position.HasLibraryThrough(committed))
            {
                return new LibraryPage(
                    [], [], TokenPrefix + tokens.Issue(user, position.WithLibraryThrough(committed), SyncTokenKind.KoboLibrary),
                    false, false)
                {
                    PageOfSync = 1,
                    Collections = [],
                    CollectionsSeenThrough = position.CollectionSeq,
                };
            }
        }

        var rows = await store.ReadChangesAsync(user, position, PageSize + 1, budget.MaxBytes, cancellationToken).ConfigureAwait(false)
            ?? throw ResourceNotFoundException.UnknownUser(user);
        if (!position.IsStart && position.CollectionSeq < rows.PurgedCollectionSeq)
        {
            // A collection deleted after this position may have been purged: the device would keep its tag
            // forever. Start over, as for any token that cannot be used.
            position = SyncPosition.Start;
            rows = await store.ReadChangesAsync(user, position, PageSize + 1, budget.MaxBytes, cancellationToken).ConfigureAwait(false)
                ?? throw ResourceNotFoundException.UnknownUser(user);
        }

        // Merge the three keyset streams by sequence number, ownership first on a tie (the book before its
        // state), then reading states, then collections (SequenceMerge).
        var books = new List<LibraryBook>();
        var states = new List<LibraryReadingState>();
        var collections = new List<Collection>();
        var fill = budget.Start();
        var (next, hasMore) = SequenceMerge.Take(
            position,
            PageSize,
            new ChangeStream<LibraryBook>(
                rows.Books, b => fill.TryAdd(books, b, SizeOf(b)),
                (p, seq, b) => p with { EntitlementSeq = seq, EntitlementBook = b.Book.Value }),
            new ChangeStream<LibraryReadingState>(
                rows.ReadingStates, r => fill.TryAdd(states, r, SizeOf(r)),
                (p, seq, r) => p with { ReadingSeq = seq, ReadingBook = r.State.Book.Value }),
            new ChangeStream<Collection>(
                rows.Collections, c => fill.TryAdd(collections, c, SizeOf(c)),
                (p, seq, c) => p with { CollectionSeq = seq, CollectionId = c.Id }));

        // Caught up: the token may move past every change committed before the read, so the next sync
        // starts after them even when the last of them was of another kind (a highlight).
        if (!hasMore)
        {
            next = next.WithLibraryThrough(rows.CommittedSeq);
        }

        next = next with { PagesInSync = hasMore ? position.PagesInSync + 1 : 0 };
        return new LibraryPage(books, states, TokenPrefix + tokens.Issue(user, next, SyncTokenKind.KoboLibrary), hasMore, position.IsStart)
        {
            PageOfSync = position.PagesInSync + 1,
            Collections = collections,
            CollectionsSeenThrough = position.CollectionSeq,
        };
    }

    // A book carries its reading state (the location is the only part of unbounded size).
    private static int SizeOf(LibraryBook book) =>
        BookOverheadBytes + ReadingStateOverheadBytes + PageBudget.JsonBytes(book.Title) + (2 * PageBudget.JsonBytes(book.Author))
        + PageBudget.JsonBytes(book.Language) + PageBudget.JsonBytes(book.ReadingState?.Position?.Location);

    private static int SizeOf(
        LibraryReadingState state) => ReadingStateOverheadBytes + PageBudget.JsonBytes(state.State.Position?.Location);

    /// <summary>A tag: its fixed fields, its name, and an item (a UUID and its type) per book.</summary>
    private static int SizeOf(Collection collection) =>
        TagOverheadBytes + PageBudget.JsonBytes(collection.Name) + (collection.Books.Count * TagItemBytes);

    /// <summary>The position a device's token names; the start (a full sync) for anything not a valid token of this user.</summary>
    public SyncPosition Resolve(UserNo user, string? syncToken)
    {
        if (string.IsNullOrEmpty(syncToken) || !syncToken.StartsWith(TokenPrefix, StringComparison.Ordinal))
        {
            return SyncPosition.Start;
        }

        try
        {
            return tokens.Resolve(user, syncToken[TokenPrefix.Length..], SyncTokenKind.KoboLibrary);
        }
        catch (InvalidRequestException)
        {
            return SyncPosition.Start;
        }
    }
}

/// <summary>
/// A page of library and reading state changes, the token for the next pull, whether more remain, and whether it began a full sync.
/// </summary>
public sealed record LibraryPage(
    IReadOnlyList<LibraryBook> Books, IReadOnlyList<LibraryReadingState> ReadingStates, string SyncToken, bool HasMore, bool FullSync)
{
    /// <summary>The changed collections of the page (the device's tags), deleted ones included.</summary>
    public IReadOnlyList<Collection> Collections { get; init; } = [];

    /// <summary>
    /// The collection position the device came with: a collection created by a later change is one the
    /// device has never received (a new tag), any other one it has (a changed tag).
    /// </summary>
    public long CollectionsSeenThrough { get; init; }

    /// <summary>Which page of its sync this is (1 for the first); for telemetry.</summary>
    public int PageOfSync { get; init; } = 1;
}
