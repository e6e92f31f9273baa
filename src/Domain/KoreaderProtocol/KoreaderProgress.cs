using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.ReadingStates;

namespace Kobo.Sync.Domain.KoreaderProtocol;

/// <summary>
/// A progress PUT as the plugin sends it (KOSyncClient.lua <c>update_progress</c>), already checked for
/// shape by the front: the document digest, KOReader's progress string (an XPointer, or a page number in a
/// paged document), the fraction read (0 to 1), the device's model and id, and the identifiers of a recent
/// plugin (null from an older one).
/// </summary>
public sealed record KoreaderPut(
    string Document, string Progress, double Percentage, string Device, string? DeviceId, IReadOnlyList<KoreaderIdentifier>? Identifiers);

/// <summary>
/// KOReader's part of a book's reading state: what its last write carried (<see cref="KoreaderPut"/>'s
/// fields) and <see cref="At"/>, the position time it was stored with. The position is KOReader's own
/// while the reading state's position time is still <see cref="At"/>.
/// </summary>
public sealed record KoreaderMark(
    string Progress, double Percentage, string Device, string? DeviceId, string? Identifiers, DateTimeOffset At);

/// <summary>
/// A book the device's document maps to: the book, the identifier that found it (its index in the candidates), and its reading state with
/// KOReader's part.
/// </summary>
public sealed record KoreaderBookRecord(BookNo Book, int Candidate, ReadingState? State, KoreaderMark? Mark);

/// <summary>A document kept for KOReader alone (no owned book): as its last writer sent it, under <see cref="Document"/>.</summary>
public sealed record KoreaderDocumentRecord(
    string Document, int Candidate, double Percentage, string Progress,
    string Device, string? DeviceId, string? Identifiers, DateTimeOffset UpdatedAt);

/// <summary>
/// What a progress read answers, in the reference server's fields (app/controllers syncs_controller.lua
/// <c>get_progress</c>): null when the document is not known (the answer is <c>{}</c>). <see cref="Match"/>
/// and <see cref="ProgressMatch"/> only when the device sent identifiers.
/// </summary>
public sealed record KoreaderProgressView(
    string Document, double Percentage, string Progress, string Device,
    string? DeviceId, long Timestamp, string? Match, string? ProgressMatch);

/// <summary>
/// What a progress PUT answers: the digest the record is stored under, the match (only when the device sent identifiers) and the receipt
/// time.
/// </summary>
public sealed record KoreaderPutResult(string Document, string? Match, long Timestamp, string? PositionResult);
