using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Highlights;

/// <summary>
/// One change of a push, as the device sent it (REST JSON and gRPC map to this unchanged; the time stays
/// as sent, see <see cref="DeviceTime"/>). Nothing is trusted yet: <see cref="ChangeValidation"/> turns it
/// into a <see cref="ValidChange"/> or a reason. <see cref="Location"/> is the optional
/// Kobo location of the passage (see <see cref="Highlights.HighlightLocation"/>).
/// </summary>
public sealed record PushedChange(
    string? Op,
    string? BookNo,
    string? Key,
    string? BaseVersion,
    string? Text,
    int? Start,
    int? Length,
    string? Color,
    string? Note,
    DeviceTime? ModifiedAt,
    string? Location = null);
