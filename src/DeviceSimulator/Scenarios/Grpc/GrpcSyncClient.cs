using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.DeviceSimulator.Devices;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Scenarios.Sync;

namespace Kobo.Sync.DeviceSimulator.Scenarios.Grpc;

/// <summary>A device's device-sync calls over gRPC: <c>SyncService/PullChanges</c> and <c>PushChanges</c>.</summary>
public sealed class GrpcSyncClient(GrpcDeviceClient client) : ISyncClient
{
    public Transport Transport => Transport.Grpc;

    public async ValueTask<(SyncAttempt Attempt, PulledPage? Page)> PullAsync(
        long userNo, string? since, int pageSize, SimulatedDevice device, CancellationToken cancellationToken)
    {
        var request = new PullChangesRequest { UserNo = userNo, Since = since ?? string.Empty, PageSize = pageSize };
        var (attempt, response) = await client.CallForAsync(
            static (c, r, o) => c.PullChangesAsync(r, o), request, userNo, device, cancellationToken);
        return response is null
            ? (attempt, null)
            : response.SyncToken.Length == 0
                ? (SyncAttempt.Permanent("bad pull page"), null)
                : (attempt, new PulledPage(
                    response.Changes.Count, response.SyncToken, response.HasMore,
                    response.Changes.Count(c => c.ChangeCase == SyncChange.ChangeOneofCase.Highlight)));
    }

    public async ValueTask<(SyncAttempt Attempt, IReadOnlyList<string>? Ids)> PushAsync(
        long userNo, IReadOnlyList<NewHighlight> batch, SimulatedDevice device, CancellationToken cancellationToken)
    {
        var request = new PushChangesRequest { UserNo = userNo };
        foreach (var h in batch)
        {
            var change = h.Delete
                ? new PushedChange
                {
                    Op = "delete", BookNo = h.BookNo, Key = h.Key, ModifiedAt = Timestamp.FromDateTimeOffset(h.ModifiedAt),
                }
                : new PushedChange
                {
                    Op = "upsert", BookNo = h.BookNo, Key = h.Key, Text = h.Text, Start = h.Start, Length = h.Length, Color = h.Color,
                    ModifiedAt = Timestamp.FromDateTimeOffset(h.ModifiedAt),
                };
            if (!h.Delete && h.Note is not null)
            {
                change.Note = h.Note;
            }

            request.Changes.Add(change);
        }

        var (attempt, response) = await client.CallForAsync(
            static (c, r, o) => c.PushChangesAsync(r, o), request, userNo, device, cancellationToken);
        if (response is null)
        {
            return (attempt, null);
        }

        var ids = new List<string>(response.Results.Count);
        foreach (var result in response.Results)
        {
            // applied, or unchanged when a same-seed run replays the batch; anything else was not stored.
            if (result.Status is not ("applied" or "unchanged"))
            {
                return (SyncAttempt.Permanent($"push {result.Status}"), null);
            }

            ids.Add(result.Id);
        }

        return (attempt, ids);
    }

    public async ValueTask<SyncAttempt> PutReadingStateAsync(
        long userNo, long bookNo, double percent, DateTimeOffset modifiedAt, SimulatedDevice device, CancellationToken cancellationToken)
    {
        var at = Timestamp.FromDateTimeOffset(modifiedAt);
        var request = new PutReadingStateRequest
        {
            UserNo = userNo,
            BookNo = bookNo,
            Position = new ReadingPosition { Percent = percent, ModifiedAt = at },
            Status = new ReadingStatus { Value = percent >= 100 ? "finished" : "reading", ModifiedAt = at },
        };
        return (await client.CallForAsync(
            static (c, r, o) => c.PutReadingStateAsync(r, o), request, userNo, device, cancellationToken)).Attempt;
    }
}
