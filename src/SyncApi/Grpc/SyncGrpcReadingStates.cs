using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.SyncApi.Grpc;

/// <summary>Maps reading states between the gRPC messages and the application's types, field for field with REST.</summary>
internal static class SyncGrpcReadingStates
{
    /// <summary>The put as sent: an absent group message is an absent group; an absent time is left for validation to refuse.</summary>
    public static PushedReadingState ToDomain(PutReadingStateRequest request) => new(
        request.Position is { } p ? new PushedPosition(p.Percent, p.HasLocation ? p.Location : null, Time(p.ModifiedAt)) : null,
        request.Status is { } s ? new PushedStatus(s.Value, Time(s.ModifiedAt)) : null,
        request.Statistics is { } t ? new PushedStatistics(t.TimeSpentMinutes, Time(t.ModifiedAt)) : null);

    public static PutReadingStateResponse ToMessage(ReadingStatePutResult result) => new()
    {
        ReadingState = ToMessage(result.State),
        PositionResult = result.Results.Position ?? string.Empty,
        StatusResult = result.Results.Status ?? string.Empty,
        StatisticsResult = result.Results.Statistics ?? string.Empty,
    };

    public static Contracts.Grpc.V1.ReadingState ToMessage(Domain.ReadingStates.ReadingState state)
    {
        var message = new Contracts.Grpc.V1.ReadingState { BookNo = state.Book.Value };
        if (state.Position is { } position)
        {
            message.Position = new Contracts.Grpc.V1.ReadingPosition
            {
                Percent = position.Percent, ModifiedAt = Timestamp.FromDateTimeOffset(position.ModifiedAt),
            };
            if (position.Location is not null)
            {
                message.Position.Location = position.Location;
            }
        }

        if (state.Status is { } status)
        {
            message.Status = new Contracts.Grpc.V1.ReadingStatus
            {
                Value = status.Value, ModifiedAt = Timestamp.FromDateTimeOffset(status.ModifiedAt),
            };
        }

        if (state.Statistics is { } statistics)
        {
            message.Statistics = new Contracts.Grpc.V1.ReadingStatistics
            {
                TimeSpentMinutes = statistics.TimeSpentMinutes,
                ModifiedAt = Timestamp.FromDateTimeOffset(statistics.ModifiedAt),
            };
        }

        if (state.ModifiedAt is { } modifiedAt)
        {
            message.ModifiedAt = Timestamp.FromDateTimeOffset(modifiedAt);
        }

        return message;
    }

    // As sent: a Timestamp out of its range (or beyond ours) is refused by validation naming the group's field.
    private static DeviceTime? Time(Timestamp? at) => at is null ? null : DeviceTime.FromUnix(at.Seconds, at.Nanos);
}
