using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.ReadingStates;

/// <summary>
/// A put of a reading state as the device sent it (REST JSON and gRPC map to this unchanged): any
/// non-empty subset of the three groups, each with its own device time. Nothing is trusted yet:
/// <see cref="ReadingStateValidation"/> turns it into a <see cref="ValidReadingState"/> or a rejection
/// naming the field.
/// </summary>
public sealed record PushedReadingState(PushedPosition? Position, PushedStatus? Status, PushedStatistics? Statistics);

/// <summary>The position group as sent: <c>percent</c> is required in it, <c>location</c> is optional.</summary>
public sealed record PushedPosition(double? Percent, string? Location, DeviceTime? ModifiedAt);

/// <summary>The status group as sent.</summary>
public sealed record PushedStatus(string? Value, DeviceTime? ModifiedAt);

/// <summary>The statistics group as sent.</summary>
public sealed record PushedStatistics(int? TimeSpentMinutes, DeviceTime? ModifiedAt);

/// <summary>
/// A put that passed validation: the groups it carries, their times in whole microseconds, already
/// clamped to server time when they lay too far in the future.
/// </summary>
public sealed record ValidReadingState(ReadingPosition? Position, ReadingStatusMark? Status, ReadingStatistics? Statistics);
