using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.KoreaderProtocol;

/// <summary>
/// KOReader's progress on the user's reading states (docs/koreader.md). A document that maps to a book the
/// user owns (<see cref="IKoreaderStore.ResolveAsync"/>: the catalogue's KOReader digests, strongest
/// identifier first) reads and writes that book's reading state: <c>percentage</c> (0 to 1) is the
/// position's percent (0 to 100), and KOReader's progress string is kept beside it as KOReader's own
/// location. Any other document is kept for the user alone, as the reference server keeps it.
/// <para>The conflict rule. KOReader sends no time of its own, so a write's device time is the server's
/// receipt time, clamped as every device time is (<see cref="ReadingStateValidation"/>), and the position
/// group is decided by <see cref="ReadingStateRules"/>. On top of it, a KOReader device never moves a
/// position set by another device backwards: a lower percentage over a position this device did not write
/// is a conflict and the stored position stays. KOReader's client reads the newer position on its next pull
/// and asks the reader whether to go there.</para>
/// </summary>
public sealed class KoreaderSync(IKoreaderStore store, SyncSettings settings, TimeProvider clock, int maxDocumentsPerUser)
{
    /// <summary>The <c>device</c> a KOReader device is told for a position set by a Kobo e-reader or an app.</summary>
    public const string OtherDeviceName = "Kobo.Sync";

    public async Task<KoreaderProgressView?> GetAsync(
        UserNo user, string document, IReadOnlyList<KoreaderIdentifier>? identifiers, CancellationToken cancellationToken)
    {
        var candidates = Candidates(document, identifiers);
        var resolution = await store.ResolveAsync(user, candidates.Select(c => c.Value).ToList(), cancellationToken).ConfigureAwait(false);
        if (resolution.Book is { } book)
        {
            return BookView(book, candidates, identifiers);
        }

        if (resolution.Document is { } kept)
        {
            var match = identifiers is null ? null : candidates[kept.Candidate].Type;
            return new KoreaderProgressView(
                kept.Document, kept.Percentage, kept.Progress, kept.Device, kept.DeviceId, kept.UpdatedAt.ToUnixTimeSeconds(),
                match, identifiers is null ? null : ProgressMatch(identifiers, kept.Identifiers, match!));
        }

        return null;
    }

    public async Task<KoreaderPutResult> PutAsync(UserNo user, KoreaderPut put, CancellationToken cancellationToken)
    {
        var now = clock.GetUtcNow();
        var candidates = Candidates(put.Document, put.Identifiers);
        var resolution = await store.ResolveAsync(user, candidates.Select(c => c.Value).ToList(), cancellationToken).ConfigureAwait(false);
        var encoded = put.Identifiers is null ? null : KoreaderIdentifiers.Encode(put.Identifiers);
        if (resolution.Book is { } book)
        {
            var valid = ReadingStateValidation.Check(
                new PushedReadingState(new PushedPosition(put.Percentage * 100, null, DeviceTime.FromInstant(now)), null, null),
                now, settings.MaxClockSkew);
            string? result = null;
            var owned = await store.ApplyToBookAsync(user, book.Book, (stored, mark) =>
            {
                var decision = Decide(book.Book, stored, mark, valid, put, encoded);
                result = decision.Result;
                return decision;
            }, cancellationToken).ConfigureAwait(false);
            if (owned)
            {
                var found = candidates[book.Candidate];
                return new KoreaderPutResult(found.Value, put.Identifiers is null ? null : found.Type, now.ToUnixTimeSeconds(), result);
            }
        }

        // A document kept for KOReader alone: under the record it resolved to, else under the strongest identifier.
        var kept = resolution.Document;
        var canonical = kept?.Document ?? candidates[0].Value;
        var matchType = kept is null ? candidates[0].Type : candidates[kept.Candidate].Type;
        var aliases = candidates.Select(c => c.Value).Where(v => v != canonical).Distinct().ToList();
        var at = await store.StoreDocumentAsync(
            user, canonical, put with { Identifiers = put.Identifiers }, aliases, maxDocumentsPerUser, cancellationToken)
            .ConfigureAwait(false);
        return new KoreaderPutResult(canonical, put.Identifiers is null ? null : matchType, at.ToUnixTimeSeconds(), ChangeStatus.Applied);
    }

    /// <summary>
    /// The rule of a KOReader write to a book: a lower percentage over a position this device did not write
    /// is stale and changes nothing; otherwise the position group is decided by <see cref="ReadingStateRules"/>
    /// on the receipt time, and KOReader's part is stored with the decided position's time when it applied or
    /// was unchanged.
    /// </summary>
    public static KoreaderBookDecision Decide(
        BookNo book, ReadingState? stored, KoreaderMark? mark, ValidReadingState put, KoreaderPut sent, string? identifiers)
    {
        var position = put.Position!;
        if (stored?.Position is { } current && position.Percent < current.Percent && !IsOwn(current, mark, sent))
        {
            return new KoreaderBookDecision(null, null, ChangeStatus.Conflict);
        }

        var decision = ReadingStateRules.Decide(book, stored, put);
        if (decision.Results.Position == ChangeStatus.Conflict)
        {
            return new KoreaderBookDecision(null, null, ChangeStatus.Conflict);
        }

        var at = decision.State.Position!.ModifiedAt;
        return new KoreaderBookDecision(
            decision.State,
            new KoreaderMark(sent.Progress, sent.Percentage, sent.Device, sent.DeviceId, identifiers, at),
            decision.Results.Position!);
    }

    // The stored position is this device's own: KOReader's last write set it, from the same device id.
    private static bool IsOwn(ReadingPosition current, KoreaderMark? mark, KoreaderPut sent) =>
        mark is not null && mark.At == current.ModifiedAt && mark.DeviceId is not null && mark.DeviceId == sent.DeviceId;

    private static KoreaderProgressView? BookView(
        KoreaderBookRecord book, IReadOnlyList<KoreaderIdentifier> candidates, IReadOnlyList<KoreaderIdentifier>? identifiers)
    {
        if (book.State?.Position is not { } position)
        {
            return null;
        }

        var found = candidates[book.Candidate];
        var match = identifiers is null ? null : found.Type;
        var timestamp = position.ModifiedAt.ToUnixTimeSeconds();
        if (book.Mark is { } mark && mark.At == position.ModifiedAt)
        {
            return new KoreaderProgressView(
                found.Value, mark.Percentage, mark.Progress, mark.Device, mark.DeviceId, timestamp,
                match, identifiers is null ? null : ProgressMatch(identifiers, mark.Identifiers, match!));
        }

        // Set by a Kobo e-reader or an app: its percent only. Their locations are not KOReader's, so the
        // progress string is empty and a recent plugin is told the two share nothing ("none").
        return new KoreaderProgressView(
            found.Value, position.Percent / 100, string.Empty, OtherDeviceName,
            null, timestamp, match, identifiers is null ? null : "none");
    }

    // The reference server's progress_match: what the reader shares with the writer of the progress string;
    // when the writer named no identifiers, how the record was found.
    private static string ProgressMatch(IReadOnlyList<KoreaderIdentifier> reader, string? writer, string match) =>
        KoreaderIdentifiers.Decode(writer) is { } list ? KoreaderIdentifiers.Common(reader, list) ?? "none" : match;

    // What to look the document up by, strongest first: the device's identifiers, or its one digest.
    private static IReadOnlyList<KoreaderIdentifier> Candidates(string document, IReadOnlyList<KoreaderIdentifier>? identifiers) =>
        identifiers ?? [new KoreaderIdentifier(string.Empty, document)];
}
