using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Collections;

/// <summary>
/// Collections, shared by REST, gRPC and the Kobo protocol: a page of the user's live collections, one
/// collection, and a push of operations (validated one by one by <see cref="CollectionValidation"/>, then
/// decided in request order by <see cref="CollectionRules"/> inside one store transaction). Each written
/// collection reaches the user's other devices as a <c>collection</c> change of the delta pull.
/// </summary>
public sealed class CollectionSync(ICollectionStore store, SyncSettings settings, TimeProvider clock, PageBudget budget)
{
    /// <summary>The most operations one push holds, as for highlight changes.</summary>
    public const int MaxBatchSize = DeviceSync.MaxBatchSize;

    public const string CursorField = "cursor";

    /// <summary>The fixed fields of a collection and their names, as an upper bound of what JSON writes for them.</summary>
    public const int OverheadBytes = PageBudget.ItemOverheadBytes;

    /// <summary>What one book number adds to a collection: up to 18 digits, quotes and a comma.</summary>
    public const int BytesPerBook = 21;

    /// <param name="skipBooksNotInLibrary">
    /// Leave out of an add the books the user never had, instead of rejecting the operation: the Kobo
    /// front's way, as calibre-web skips the items it does not know.
    /// </param>
    public async Task<CollectionPushResult> PushAsync(
        DeviceCaller caller, UserNo user, IReadOnlyList<PushedCollectionOp?>? ops, CancellationToken cancellationToken,
        bool skipBooksNotInLibrary = false)
    {
        caller.EnsureOwns(user);
        if (ops is null)
        {
            throw new InvalidRequestException(
                BatchTooLargeException.Field, $"changes is required: a list of 0 to {MaxBatchSize} operations.");
        }

        if (ops.Count > MaxBatchSize)
        {
            throw new BatchTooLargeException(ops.Count, MaxBatchSize);
        }

        var now = clock.GetUtcNow();
        var results = new ChangeResult[ops.Count];
        var valid = new List<(int Index, ValidCollectionOp Op)>(ops.Count);
        for (var i = 0; i < ops.Count; i++)
        {
            if (ops[i] is not { } pushed)
            {
                results[i] = new ChangeResult(null, ChangeStatus.Rejected, null, "The operation is empty.");
                continue;
            }

            var op = CollectionValidation.Check(
                pushed, settings.MaxBooksPerCollection, now, settings.MaxClockSkew, out var id, out var reason);
            if (op is null)
            {
                results[i] = new ChangeResult(id, ChangeStatus.Rejected, null, reason);
            }
            else
            {
                valid.Add((i, op));
            }
        }

        var ids = valid.Select(v => v.Op.Id).ToHashSet();
        var books = valid.SelectMany(v => v.Op.Books).ToHashSet();
        var after = new Dictionary<Guid, CollectionState>();
        var found = await store.ApplyAsync(user, ids, books, snapshot =>
        {
            // Operations apply in request order; a later one on the same collection meets the earlier one's result.
            var current = new Dictionary<Guid, CollectionState>(snapshot.Stored);
            var written = new Dictionary<Guid, HashSet<BookNo>>();
            foreach (var (index, sent) in valid)
            {
                var op = sent;
                if (skipBooksNotInLibrary && op.Kind == CollectionOpKind.AddBooks)
                {
                    op = op with { Books = [.. op.Books.Where(snapshot.OwnedBooks.Contains)] };
                }

                var outcome = CollectionRules.Apply(current.GetValueOrDefault(op.Id), op, snapshot.OwnedBooks, now);

                // A conflict stores the winner again, unchanged, with a new sequence number: the losing device
                // holds its own edit locally (a Kobo e-reader learns nothing from the answer), and its next
                // pull must bring the winner even when its token is already past the winner's first delivery.
                if ((outcome.Writes || outcome.Status == ChangeStatus.Conflict) && outcome.State is { } state)
                {
                    current[op.Id] = state;
                    if (!written.TryGetValue(op.Id, out var changedBooks))
                    {
                        written[op.Id] = changedBooks = [];
                    }

                    changedBooks.UnionWith(outcome.ChangedBooks);
                }

                results[index] = new ChangeResult(CollectionValidation.Format(op.Id), outcome.Status, null, outcome.Reason);
            }

            EnsureWithinBounds(snapshot, current, written.Keys);
            foreach (var id in ids)
            {
                if (current.TryGetValue(id, out var state))
                {
                    after[id] = state;
                }
            }

            return [.. written.Select(w => new CollectionWrite(current[w.Key], w.Value))];
        }, cancellationToken).ConfigureAwait(false);
        if (!found)
        {
            throw ResourceNotFoundException.UnknownUser(user);
        }

        // The touched collections as stored after the push, in the order first named: a device whose edit
        // lost learns the state that won at once. They fill the page byte budget as a page does; the ids of
        // the ones past it are answered instead (a device reads each, or takes it from its next pull), so a
        // small push that touches many large collections cannot make an answer of megabytes.
        var fill = budget.Start();
        var collections = new List<Collection>();
        var omitted = new List<string>();
        foreach (var id in valid.Select(v => v.Op.Id).Distinct().Where(after.ContainsKey))
        {
            var view = after[id].ToView();
            if (omitted.Count > 0 || !fill.TryAdd(collections, view, SizeOf(view)))
            {
                omitted.Add(CollectionValidation.Format(id));
            }
        }

        return new CollectionPushResult(results, collections, omitted);
    }

    /// <summary>A page of the user's live collections in id order, with the paging rules of the device list.</summary>
    public async Task<CollectionList> ListAsync(
        DeviceCaller caller, UserNo user, int? pageSize, string? cursor, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var size = PageSizes.Resolve(pageSize, DeviceReads.DefaultPageSize, DeviceReads.MaxPageSize);

        Guid? after = null;
        if (!string.IsNullOrEmpty(cursor))
        {
            after = CollectionValidation.TryParseId(cursor, out var id)
                ? id
                : throw new InvalidRequestException(
                    CursorField,
                    "The cursor is not valid: pass back, unchanged, a nextCursor this service returned, or none for the first page.");
        }

        var rows = await store.ListAsync(user, after, size + 1, cancellationToken).ConfigureAwait(false)
            ?? throw ResourceNotFoundException.UnknownUser(user);
        var fill = budget.Start();
        var page = new List<Collection>(Math.Min(size, rows.Count));
        foreach (var collection in rows)
        {
            if (page.Count == size || !fill.TryTake(SizeOf(collection)))
            {
                break;
            }

            page.Add(collection);
        }

        return new CollectionList(page, page.Count < rows.Count ? CollectionValidation.Format(page[^1].Id) : null);
    }

    /// <summary>One collection with its books; a deleted one is answered as a tombstone (deleted, no books).</summary>
    public async Task<Collection> GetAsync(DeviceCaller caller, UserNo user, string? collectionId, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var id = ParseId(collectionId);
        var lookup = await store.GetAsync(user, id, cancellationToken).ConfigureAwait(false);
        if (!lookup.UserExists)
        {
            throw ResourceNotFoundException.UnknownUser(user);
        }

        return lookup.Collection
            ?? throw new ResourceNotFoundException($"User {user} has no collection {CollectionValidation.Format(id)}.");
    }

    /// <summary>The user's live collection of this name, if any: a Kobo create of an existing name is that collection.</summary>
    public Task<Guid?> FindLiveByNameAsync(UserNo user, string name, CancellationToken cancellationToken) =>
        store.FindLiveByNameAsync(user, name, cancellationToken);

    /// <summary>A collection's measure in a page: its fixed fields, its name and its books.</summary>
    public static int SizeOf(Collection collection) =>
        OverheadBytes + PageBudget.JsonBytes(collection.Name) + (collection.Books.Count * BytesPerBook);

    /// <summary>The collection id of a path or message, or a rejection naming <c>collectionId</c>.</summary>
    public static Guid ParseId(string? collectionId) =>
        CollectionValidation.TryParseId(collectionId, out var id)
            ? id
            : throw new InvalidRequestException(
                "collectionId", "collectionId must be a UUID (such as 0f8fad5b-d9cb-469f-a165-70867728950e), not the nil UUID.");

    /// <summary>
    /// A push that adds live collections past the bound, books to a collection past its bound, stored
    /// collections (live and deleted) past theirs, or membership registers to a collection past theirs, is
    /// refused whole. What a push does not grow (a delete of a live collection, a removal of a present book)
    /// always passes.
    /// </summary>
    private void EnsureWithinBounds(CollectionSnapshot snapshot, Dictionary<Guid, CollectionState> current, IEnumerable<Guid> written)
    {
        var liveChange = 0;
        var storedChange = 0;
        foreach (var id in written)
        {
            var existed = snapshot.Stored.TryGetValue(id, out var before);
            var wasLive = existed && !before!.Deleted;
            var state = current[id];
            liveChange += (state.Deleted ? 0 : 1) - (wasLive ? 1 : 0);
            storedChange += existed ? 0 : 1;
            var registers = state.Books.Count;
            if (registers > settings.MaxBookRegistersPerCollection && registers > (before?.Books.Count ?? 0))
            {
                throw CollectionBoundExceededException.TooManyRegisters(id, registers, settings.MaxBookRegistersPerCollection);
            }

            if (!state.Deleted)
            {
                var count = state.Books.Values.Count(m => m.Present);
                var had = before is { Deleted: false } ? before.Books.Values.Count(m => m.Present) : 0;
                if (count > settings.MaxBooksPerCollection && count > had)
                {
                    throw CollectionBoundExceededException.TooManyBooks(id, count, settings.MaxBooksPerCollection);
                }
            }
        }

        if (liveChange > 0 && snapshot.LiveCount + liveChange > settings.MaxCollectionsPerUser)
        {
            throw CollectionBoundExceededException.TooManyCollections(snapshot.LiveCount + liveChange, settings.MaxCollectionsPerUser);
        }

        if (storedChange > 0 && snapshot.StoredCount + storedChange > settings.MaxStoredCollectionsPerUser)
        {
            throw CollectionBoundExceededException.TooManyStored(snapshot.StoredCount + storedChange, settings.MaxStoredCollectionsPerUser);
        }
    }
}

/// <summary>
/// The answer to a push: one result per operation, in request order; the touched collections as stored
/// after it, in the order first named, as many as the page byte budget holds; and the ids of the touched
/// collections past the budget, in the same order (empty when all fit).
/// </summary>
public sealed record CollectionPushResult(
    IReadOnlyList<ChangeResult> Results, IReadOnlyList<Collection> Collections, IReadOnlyList<string> OmittedCollectionIds);
