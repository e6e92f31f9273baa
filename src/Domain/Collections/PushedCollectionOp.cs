using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Collections;

/// <summary>
/// One operation of a collection push, as the device sent it (REST JSON and gRPC map to this unchanged):
/// <c>upsert</c> (create or rename: <see cref="Name"/>), <c>delete</c>, <c>addBooks</c> or
/// <c>removeBooks</c> (<see cref="BookNos"/>), each with the device time of the edit. Nothing is trusted
/// yet: <see cref="CollectionValidation"/> turns it into a <see cref="ValidCollectionOp"/> or a reason.
/// </summary>
public sealed record PushedCollectionOp(
    string? Op, string? CollectionId, string? Name, IReadOnlyList<string?>? BookNos, DeviceTime? ModifiedAt);

/// <summary>What an operation does.</summary>
public enum CollectionOpKind
{
    Upsert,
    Delete,
    AddBooks,
    RemoveBooks,
}

/// <summary>
/// An operation that passed validation: its collection, its name (upsert) or its distinct books (add,
/// remove), and its device time in whole microseconds, clamped to server time when too far ahead.
/// </summary>
public sealed record ValidCollectionOp(CollectionOpKind Kind, Guid Id, string? Name, IReadOnlyList<BookNo> Books, DateTimeOffset At);
