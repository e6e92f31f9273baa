using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.KoboProtocol;

/// <summary>
/// The reading-services calls of a Kobo device, on the service's own highlights (docs/kobo.md,
/// "Annotations" and "Never wiping a device"). A PATCH is a push through <see cref="DeviceSync"/>:
/// idempotent, last writer wins per field with the skew clamp, deletions become tombstones. A device
/// replaces its whole set of a book's annotations with what a download answers, and downloads a book
/// only when <c>checkforchanges</c> names it; so a book is named only when the device's set is known
/// to come from this service and nothing the device sent was withheld.
/// </summary>
public sealed class KoboAnnotations(DeviceSync sync, IKoboAnnotationStore store, TimeProvider clock)
{
    /// <summary>The most annotations (updated plus deleted) one PATCH may carry.</summary>
    public const int MaxPatchItems = 2_000;

    /// <summary>The most annotations a book's download answers; a book with more is never offered for download.</summary>
    public const int MaxAnnotationsPerBook = 1_000;

    /// <summary>
    /// The most bytes of annotations a book's download answers, measured as pages are
    /// (<see cref="HighlightView.PageBytes"/>): 4 MiB, over 2,500 bytes for each of the 1,000, where a
    /// device's annotation (a passage, a note, its location) is typically under 1,500. The set cannot
    /// be paged (the device replaces its whole set with it), so a larger one is refused like too many
    /// annotations, never cut short: 1,000 of the largest legal highlights would be a 72 MB answer.
    /// </summary>
    public const int MaxAnnotationBytesPerBook = 4 * 1024 * 1024;

    /// <summary>The most content ids one <c>checkforchanges</c> may ask about.</summary>
    public const int MaxCheckedBooks = 2_000;

    /// <param name="eReader">The e-reader: its link, not only the device that made it (one device may link several e-readers).</param>
    public async Task<IReadOnlyList<KoboAnnotationResult>> PatchAsync(
        DeviceCaller caller, string eReader, string contentId, IReadOnlyList<KoboAnnotation?>? updated, IReadOnlyList<string?>? deleted,
        CancellationToken cancellationToken)
    {
        var count = (updated?.Count ?? 0) + (deleted?.Count ?? 0);
        if (count > MaxPatchItems)
        {
            throw new InvalidRequestException(
                "updatedAnnotations",
                $"A PATCH carries at most {MaxPatchItems} annotations (updated and deleted together); this one carried {count}.");
        }

        var book = await OwnedBookAsync(caller, contentId, cancellationToken).ConfigureAwait(false);
        var results = new KoboAnnotationResult[count];
        var changes = new List<(int Index, PushedChange Change)>(count);
        var withheld = false;
        for (var i = 0; i < (updated?.Count ?? 0); i++)
        {
            var annotation = updated![i];
            string? reason = "The annotation is empty.";
            var change = annotation is null ? null : KoboAnnotationMapping.ToChange(book, annotation, out reason);
            if (change is null)
            {
                results[i] = new KoboAnnotationResult(annotation?.Id, KoboAnnotationStatus.Withheld, reason);
                withheld = true;
            }
            else
            {
                changes.Add((i, change));
            }
        }

        var receivedAt = clock.GetUtcNow();
        var offset = updated?.Count ?? 0;
        for (var i = 0; i < (deleted?.Count ?? 0); i++)
        {
            // An id that is no annotation id names nothing the service holds: there is nothing to delete.
            if (KoboAnnotationMapping.ToDeletion(book, deleted![i], receivedAt) is { } deletion)
            {
                changes.Add((offset + i, deletion));
            }
            else
            {
                results[offset + i] = new KoboAnnotationResult(
                    deleted[i], KoboAnnotationStatus.Stored, "Not an annotation id; nothing to delete.");
            }
        }

        // Withheld first: if the push then fails, the book is already one never offered for download.
        if (withheld)
        {
            await store.RecordReceivedAsync(caller.User, eReader, book, true, cancellationToken).ConfigureAwait(false);
        }

        var rejected = false;
        foreach (var chunk in changes.Chunk(DeviceSync.MaxBatchSize))
        {
            var pushed = await sync.PushAsync(caller, caller.User, chunk.Select(c => (PushedChange?)c.Change).ToArray(), cancellationToken)
                .ConfigureAwait(false);
            for (var j = 0; j < chunk.Length; j++)
            {
                var result = pushed[j];
                var (index, change) = chunk[j];
                rejected |= result.Status == ChangeStatus.Rejected;
                results[index] = result.Status switch
                {
                    ChangeStatus.Rejected => new KoboAnnotationResult(change.Key, KoboAnnotationStatus.Withheld, result.Reason),
                    ChangeStatus.Conflict => new KoboAnnotationResult(change.Key, KoboAnnotationStatus.Conflict, result.Reason),
                    _ => new KoboAnnotationResult(change.Key, KoboAnnotationStatus.Stored),
                };
            }
        }

        // An empty PATCH brings nothing of the book: the service still knows nothing of the device's set.
        if (count > 0)
        {
            await store.RecordReceivedAsync(caller.User, eReader, book, rejected, cancellationToken).ConfigureAwait(false);
        }

        return results;
    }

    /// <summary>The book's live highlights that carry a location, for this device's download of the book.</summary>
    public async Task<KoboAnnotationSet> GetAsync(
        DeviceCaller caller, string eReader, string contentId, CancellationToken cancellationToken)
    {
        var book = await OwnedBookAsync(caller, contentId, cancellationToken).ConfigureAwait(false);
        var read = await store.ReadBookAsync(
            caller.User, eReader, book, MaxAnnotationsPerBook + 1, cancellationToken).ConfigureAwait(false);
        // Only annotations the service withheld, and none it holds: an empty set would delete them too.
        var outcome = !read.State.Received || (read.State.Withheld && read.Highlights.Count == 0) ? KoboSetOutcome.NeverReceived
            : read.Highlights.Count > MaxAnnotationsPerBook || BytesOf(read.Highlights) > MaxAnnotationBytesPerBook ? KoboSetOutcome.TooMany
            : KoboSetOutcome.Complete;
        return new KoboAnnotationSet(
            outcome, outcome == KoboSetOutcome.Complete ? read.Highlights : [], KoboAnnotationETags.For(caller.User, read.State));
    }

    /// <summary>
    /// The content ids, of those asked about, whose download would bring the device something new and
    /// take nothing from it: books the user owns, whose set the device has from this service (its ETag
    /// is ours) and has changed since, of which the device has sent nothing the service withheld, and
    /// which are not over <see cref="MaxAnnotationsPerBook"/>. In the order asked.
    /// </summary>
    public async Task<IReadOnlyList<string>> CheckForChangesAsync(
        DeviceCaller caller, string eReader, IReadOnlyList<(string? ContentId, string? ETag)>? asked, CancellationToken cancellationToken)
    {
        if (asked is null || asked.Count == 0)
        {
            return [];
        }

        if (asked.Count > MaxCheckedBooks)
        {
            throw new InvalidRequestException(
                "contentIds", $"checkforchanges asks about at most {MaxCheckedBooks} books; this one asked about {asked.Count}.");
        }

        var candidates = new List<(string ContentId, BookNo Book, string ETag)>();
        foreach (var (contentId, etag) in asked)
        {
            if (BookUuid.TryParse(contentId, out var book) && KoboAnnotationETags.IsOurs(caller.User, book, etag))
            {
                candidates.Add((contentId!, book, etag!));
            }
        }

        if (candidates.Count == 0)
        {
            return [];
        }

        var states = (await store.ReadStatesAsync(
            caller.User, eReader, candidates.Select(c => c.Book).Distinct().ToArray(), cancellationToken)
            .ConfigureAwait(false)).ToDictionary(s => s.Book);
        return candidates
            .Where(c => states.TryGetValue(c.Book, out var s)
                && s.Owned && s.Received && !s.Withheld && s.Located <= MaxAnnotationsPerBook
                && !string.Equals(c.ETag, KoboAnnotationETags.For(caller.User, s), StringComparison.Ordinal))
            .Select(c => c.ContentId)
            .Distinct(StringComparer.Ordinal)
            .ToArray();
    }

    private static long BytesOf(IReadOnlyList<HighlightView> highlights)
    {
        long bytes = 0;
        foreach (var highlight in highlights)
        {
            bytes += highlight.PageBytes();
        }

        return bytes;
    }

    private async Task<BookNo> OwnedBookAsync(DeviceCaller caller, string contentId, CancellationToken cancellationToken)
    {
        if (!BookUuid.TryParse(contentId, out var book))
        {
            throw new ResourceNotFoundException("This content id is not a book of this service.");
        }

        return await store.OwnsBookAsync(caller.User, book, cancellationToken).ConfigureAwait(false)
            ? book
            : throw new ResourceNotFoundException($"User {caller.User} does not own this book.");
    }
}

/// <summary>What a book's download can answer: the whole set, or why the service answers none.</summary>
public enum KoboSetOutcome
{
    /// <summary>Every live highlight of the book that carries a location.</summary>
    Complete,

    /// <summary>This device has sent no annotation of the book: the service knows nothing of the device's set.</summary>
    NeverReceived,

    /// <summary>More than <see cref="KoboAnnotations.MaxAnnotationsPerBook"/>: a set cut short would delete the rest.</summary>
    TooMany,
}

/// <summary>A book's download: the highlights when <see cref="Outcome"/> is complete, and the set's ETag.</summary>
public sealed record KoboAnnotationSet(KoboSetOutcome Outcome, IReadOnlyList<HighlightView> Highlights, string ETag);
