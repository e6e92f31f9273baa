using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.ChangeFeed;

/// <summary>
/// Device sync, shared by REST and gRPC: the push of highlight changes (validation, then
/// <see cref="ConflictRules"/> inside one store transaction) and the delta pull (keyset pages over the
/// user's change sequence, positions carried in signed <see cref="SyncTokens"/>). A pull's page ends
/// at its size, or earlier when the next change would take it past the <see cref="PageBudget"/>.
/// </summary>
public sealed class DeviceSync(
    ISyncStore store, IDeviceStore devices, SyncTokens tokens, SyncSettings settings,
    TimeProvider clock, PageBudget budget, IDevicePositions positions)
{
    public const int MaxBatchSize = 500;
    public const int DefaultPageSize = 100;
    public const int MaxPageSize = 1_000;

    public async Task<IReadOnlyList<ChangeResult>> PushAsync(
        DeviceCaller caller, UserNo user, IReadOnlyList<PushedChange?>? changes, CancellationToken cancellationToken) =>
        (await PushAsync(caller, user, changes, since: null, cancellationToken).ConfigureAwait(false)).Results;

    /// <summary>
    /// The push; with <paramref name="since"/> (the device's sync token, checked before anything is stored),
    /// the answer carries that token again with the push as the device's last write
    /// (<see cref="SyncPosition.WrittenSeq"/>): a pull with it shows the push whichever instance answers it,
    /// from a standby only once the standby has it.
    /// </summary>
    public async Task<PushAnswer> PushAsync(
        DeviceCaller caller, UserNo user, IReadOnlyList<PushedChange?>? changes, string? since, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        SyncPosition? position = string.IsNullOrEmpty(since) ? null : tokens.Resolve(user, since);

        // The answer once the store is done: the token names what the store wrote (written: the user's change sequence after it).
        PushAnswer Answer(ChangeResult[] results, long? written) => new(
            results, position is { } p ? tokens.Issue(user, p with { WrittenSeq = Math.Max(p.WrittenSeq, written ?? 0) }) : null);

        if (changes is null)
        {
            throw new InvalidRequestException(BatchTooLargeException.Field, "changes is required: a list of 0 to 500 changes.");
        }

        if (changes.Count > MaxBatchSize)
        {
            throw new BatchTooLargeException(changes.Count, MaxBatchSize);
        }

        var now = clock.GetUtcNow();
        var results = new ChangeResult[changes.Count];
        var valid = new (int Index, ValidChange Change, string Id)[changes.Count];
        var validCount = 0;
        for (var i = 0; i < changes.Count; i++)
        {
            if (changes[i] is not { } pushed)
            {
                results[i] = new ChangeResult(null, ChangeStatus.Rejected, null, "The change is empty.");
                continue;
            }

            var change = ChangeValidation.Check(user, pushed, now, settings.MaxClockSkew, out var id, out var reason);
            if (change is null)
            {
                results[i] = new ChangeResult(id, ChangeStatus.Rejected, null, reason);
            }
            else
            {
                valid[validCount++] = (i, change, id!);
            }
        }

        if (validCount == 0)
        {
            if (changes.Count > 0)
            {
                return Answer(results, null);
            }

            var seq = await store.ApplyAsync(user, [], (_, _) => [], cancellationToken).ConfigureAwait(false);
            return seq is null ? throw ResourceNotFoundException.UnknownUser(user) : Answer(results, seq);
        }

        var ids = new HashSet<HighlightId>(validCount);
        for (var v = 0; v < validCount; v++)
        {
            ids.Add(valid[v].Change.Id);
        }

        var written = await store.ApplyAsync(user, ids, (stored, holdings) =>
        {
            // Changes apply in request order; a later change of the same highlight meets the earlier one's
            // result. The states to store, in the order their highlights were first written, each the latest
            // decided; a highlight not among them has met only replays, so its current state is the stored one.
            var writes = new List<HighlightState>(ids.Count);
            var slots = new Dictionary<HighlightId, int>(ids.Count);
            for (var v = 0; v < validCount; v++)
            {
                var (index, change, id) = valid[v];
                var written = slots.TryGetValue(change.Id, out var slot);
                var current = written ? writes[slot] : stored.GetValueOrDefault(change.Id);
                var decision = ConflictRules.Decide(current, change, now);

                // A conflict stores the winner again, unchanged (same version), with a new sequence
                // number: the losing device holds its own edit locally, and its next pull must bring
                // the winner even when its token is already past the winner's first delivery.
                if (decision.Writes || decision.Status == ChangeStatus.Conflict)
                {
                    if (!written)
                    {
                        slots[change.Id] = writes.Count;
                        writes.Add(decision.State);
                    }
                    else if (decision.Writes)
                    {
                        writes[slot] = decision.State;
                    }
                }

                results[index] = new ChangeResult(id, decision.Status, Versions.Format(decision.State.Version), decision.Reason);
            }

            EnsureWithinQuota(holdings, HighlightHoldings.Change(stored, writes));
            return writes;
        }, cancellationToken).ConfigureAwait(false);
        return written is null ? throw ResourceNotFoundException.UnknownUser(user) : Answer(results, written);
    }

    public async Task<SyncChangePage> PullAsync(
        DeviceCaller caller, UserNo user, string? since, int? pageSize, CancellationToken cancellationToken)
    {
        caller.EnsureOwns(user);
        var size = PageSizes.Resolve(pageSize, DefaultPageSize, MaxPageSize);

        var position = string.IsNullOrEmpty(since) ? SyncPosition.Start : tokens.Resolve(user, since);

        // The token the device came back with is what it has applied: its acknowledged position, written behind.
        if (!position.IsStart && position.PagesInSync == 0)
        {
            // A new sync (not the next page of one) from a token at or past the user's committed sequence in
            // every stream has nothing to fetch (SyncPosition.HasAllThrough). Most of a fleet's syncs end
            // here, on one indexed read and no write.
            var committed = await store.ReadCommittedSeqAsync(user, position.WrittenSeq, cancellationToken).ConfigureAwait(false)
                ?? throw ResourceNotFoundException.UnknownUser(user);
            if (position.HasAllThrough(user, committed))
            {
                positions.Record(user, caller.DeviceId, position.Seq);
                return Page(user, position, [], hasMore: false, committed);
            }
        }

        var rows = await store.ReadChangesAsync(user, position, size + 1, budget.MaxBytes, cancellationToken).ConfigureAwait(false)
            ?? throw ResourceNotFoundException.UnknownUser(user);
        if (position.IsStart)
        {
            // A full sync, most often a device's first: written at once, so the device is known (listed,
            // revocable, counted against the user's devices) when its first answer arrives.
            await devices.RecordPullsAsync(
                [new DevicePull(user, caller.DeviceId, 0, clock.GetUtcNow())], Bounds(), cancellationToken).ConfigureAwait(false);
        }

        if (!position.IsStart && (position.HighlightSeq < rows.PurgedHighlightSeq || position.CollectionSeq < rows.PurgedCollectionSeq))
        {
            throw new SyncTokenExpiredException();
        }

        // Merge the four keyset streams by sequence number, entitlements first on a tie (the library
        // before the highlights in it), then reading states, then collections (SequenceMerge).
        // The store cut the highlights short of the budget too (see ISyncStore.ReadChangesAsync), never
        // below what this page can take: the highlights it left out lie past one this page cannot fit.
        var changes = new List<SyncChange>(
            Math.Min(size, rows.Highlights.Count + rows.Entitlements.Count + rows.ReadingStates.Count + rows.Collections.Count));
        var fill = budget.Start();
        bool TryAdd(SyncChange change) => fill.TryAdd(changes, change, change.PageBytes());

        var (next, hasMore) = SequenceMerge.Take(
            position,
            size,
            new ChangeStream<EntitlementState>(
                rows.Entitlements, e => TryAdd(SyncChange.Of(e)),
                (p, seq, e) => p with { EntitlementSeq = seq, EntitlementBook = e.BookNo }),
            new ChangeStream<ReadingStates.ReadingState>(
                rows.ReadingStates, r => TryAdd(SyncChange.Of(r)), (p, seq, r) => p with { ReadingSeq = seq, ReadingBook = r.Book.Value }),
            new ChangeStream<Collections.Collection>(
                rows.Collections, c => TryAdd(SyncChange.Of(c)), (p, seq, c) => p with { CollectionSeq = seq, CollectionId = c.Id }),
            new ChangeStream<HighlightState>(
                rows.Highlights, h => TryAdd(SyncChange.Of(h)),
                (p, seq, h) => p with { HighlightSeq = seq, HighlightId = h.Id.ToString() }));
        if (!position.IsStart)
        {
            positions.Record(user, caller.DeviceId, position.Seq);
        }

        return Page(user, next, changes, hasMore, rows.CommittedSeq, position.PagesInSync);
    }

    /// <summary>A page of the pull that ends at <paramref name="next"/>, with its token.</summary>
    private SyncChangePage Page(
        UserNo user, SyncPosition next, IReadOnlyList<SyncChange> changes, bool hasMore, long committedSeq, int pagesBefore = 0)
    {
        if (!hasMore)
        {
            // Caught up: every change numbered up to the committed sequence has been delivered (or
            // superseded by a later one), so the token may move past them all. Without this a token
            // would stop at the last change delivered, and a tombstone purged after it would make a
            // complete device start over.
            if (committedSeq >= next.HighlightSeq)
            {
                next = next.WithHighlightsThrough(user, committedSeq);
            }

            next = next.WithLibraryThrough(committedSeq);

            // Past the device's last write too: the position itself now makes a read see it.
            if (committedSeq >= next.WrittenSeq)
            {
                next = next with { WrittenSeq = 0 };
            }
        }

        var pageOfSync = pagesBefore + 1;
        next = next with { PagesInSync = hasMore ? pageOfSync : 0 };
        return new SyncChangePage(changes, tokens.Issue(user, next), hasMore)
        {
            PageOfSync = pageOfSync,
            // Each change has a number of its own, so a caught-up position has delivered every change up
            // to the lowest of its streams' positions, and at least up to the committed sequence.
            CaughtUpThrough = hasMore ? null : Math.Max(committedSeq, next.LowestSeq),
        };
    }

    /// <summary>
    /// A push that adds highlights or bytes past the user's quota is refused whole; one that adds none
    /// always passes. So is one that stores new tombstones (deletes of keys never stored) past
    /// <c>Sync:MaxTombstonesPerUser</c>: deleting a live highlight turns its row into a tombstone and adds
    /// none, so it always passes.
    /// </summary>
    private void EnsureWithinQuota(HighlightHoldings holdings, HighlightHoldings change)
    {
        var after = new HighlightHoldings(
            holdings.Count + change.Count, holdings.Bytes + change.Bytes, holdings.Tombstones + change.Tombstones);
        if ((change.Count > 0 && after.Count > settings.MaxHighlightsPerUser)
            || (change.Bytes > 0 && after.Bytes > settings.MaxHighlightBytesPerUser))
        {
            throw new HighlightQuotaExceededException(after, settings.MaxHighlightsPerUser, settings.MaxHighlightBytesPerUser);
        }

        if (change.Tombstones > 0 && change.Count + change.Tombstones > 0 && after.Tombstones > settings.MaxTombstonesPerUser)
        {
            throw new TombstoneQuotaExceededException(after.Tombstones, settings.MaxTombstonesPerUser);
        }
    }

    /// <summary>The bounds of a user's devices now: revocations older than their lifetime are no longer in force.</summary>
    private DeviceBounds Bounds() => DeviceBounds.Now(settings.MaxDevicesPerUser, settings.RevocationLifetime, clock);
}
