using System.Globalization;
using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Highlights;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Live;

namespace Kobo.Sync.SyncApi.Grpc;

/// <summary>Maps device sync between the gRPC messages and the application's types, field for field with REST.</summary>
internal static class SyncGrpcChanges
{
    public static Domain.Highlights.PushedChange ToDomain(Contracts.Grpc.V1.PushedChange change) => new(
        change.Op,
        // proto3 has no absent scalar: 0 is "not given", which validation rejects like a missing bookNo.
        change.BookNo == 0 ? null : change.BookNo.ToString(CultureInfo.InvariantCulture),
        change.Key,
        change.BaseVersion,
        change.Text.Length == 0 ? null : change.Text,
        change.HasStart ? change.Start : null,
        change.HasLength ? change.Length : null,
        change.Color.Length == 0 ? null : change.Color,
        change.HasNote ? change.Note : null,
        // As sent: a Timestamp out of its range (or beyond ours) is that change's rejection, not a failed call.
        change.ModifiedAt is { } at ? DeviceTime.FromUnix(at.Seconds, at.Nanos) : null,
        change.HasLocation ? change.Location : null);

    public static PushChangesResponse ToMessage(IReadOnlyList<Domain.Requests.ChangeResult> results)
    {
        var message = new PushChangesResponse();
        foreach (var result in results)
        {
            message.Results.Add(new Contracts.Grpc.V1.ChangeResult
            {
                Id = result.Id ?? string.Empty,
                Status = result.Status,
                Version = result.Version ?? string.Empty,
                Reason = result.Reason ?? string.Empty,
            });
        }

        return message;
    }

    public static PullChangesResponse ToMessage(SyncChangePage page)
    {
        var message = new PullChangesResponse { SyncToken = page.SyncToken, HasMore = page.HasMore, PageOfSync = page.PageOfSync };
        AddChanges(message.Changes, page);
        return message;
    }

    /// <summary>A page of a watch; a heartbeat has no changes and the last token.</summary>
    public static WatchChangesResponse ToWatchMessage(LivePage page)
    {
        var message = new WatchChangesResponse
        {
            SyncToken = page.Page.SyncToken, HasMore = page.Page.HasMore, Heartbeat = page.Heartbeat, PageOfSync = page.Page.PageOfSync,
        };
        AddChanges(message.Changes, page.Page);
        return message;
    }

    private static void AddChanges(Google.Protobuf.Collections.RepeatedField<Contracts.Grpc.V1.SyncChange> changes, SyncChangePage page)
    {
        foreach (var change in page.Changes)
        {
            if (change.Collection is { } collection)
            {
                changes.Add(
                    new Contracts.Grpc.V1.SyncChange
                    {
                        Collection = new CollectionChange { Collection = SyncGrpcCollections.ToMessage(collection) },
                    });
                continue;
            }

            if (change.ReadingState is { } readingState)
            {
                changes.Add(
                    new Contracts.Grpc.V1.SyncChange
                    {
                        ReadingState = new ReadingStateChange { State = SyncGrpcReadingStates.ToMessage(readingState) },
                    });
                continue;
            }

            changes.Add(change.Kind == Domain.Highlights.SyncChange.EntitlementKind
                ? new Contracts.Grpc.V1.SyncChange
                {
                    Entitlement = new EntitlementChange
                    {
                        BookNo = long.Parse(change.BookNo!, CultureInfo.InvariantCulture),
                        Title = change.Title ?? string.Empty,
                        Author = change.Author ?? string.Empty,
                        Removed = change.Removed ?? false,
                        ModifiedAt = Timestamp.FromDateTimeOffset(change.ModifiedAt),
                    },
                }
                : new Contracts.Grpc.V1.SyncChange { Highlight = ToMessage(change) });
        }
    }

    public static ListDevicesResponse ToMessage(DeviceList list)
    {
        var message = new ListDevicesResponse { NextCursor = list.NextCursor ?? string.Empty };
        foreach (var device in list.Devices)
        {
            var item = new Device
            {
                DeviceId = device.DeviceId,
                FirstSeenAt = Timestamp.FromDateTimeOffset(device.FirstSeenAt),
                Position = device.Position,
            };
            if (device.LastSyncAt is { } lastSyncAt)
            {
                item.LastSyncAt = Timestamp.FromDateTimeOffset(lastSyncAt);
            }

            if (device.RevokedAt is { } revokedAt)
            {
                item.RevokedAt = Timestamp.FromDateTimeOffset(revokedAt);
            }

            message.Devices.Add(item);
        }

        return message;
    }

    private static HighlightChange ToMessage(Domain.Highlights.SyncChange change)
    {
        var highlight = new HighlightChange
        {
            Id = change.Id ?? string.Empty,
            BookNo = long.Parse(change.BookNo!, CultureInfo.InvariantCulture),
            Key = change.Key ?? string.Empty,
            ModifiedAt = Timestamp.FromDateTimeOffset(change.ModifiedAt),
            Deleted = change.Deleted ?? false,
            Version = change.Version ?? string.Empty,
        };
        if (change.CreatedAt is { } createdAt)
        {
            highlight.CreatedAt = Timestamp.FromDateTimeOffset(createdAt);
        }

        if (change.Text is not null)
        {
            highlight.Text = change.Text;
        }

        if (change.Start is { } start)
        {
            highlight.Start = start;
        }

        if (change.Length is { } length)
        {
            highlight.Length = length;
        }

        if (change.Color is not null)
        {
            highlight.Color = change.Color;
        }

        if (change.Note is not null)
        {
            highlight.Note = change.Note;
        }

        if (change.Location is not null)
        {
            highlight.Location = change.Location;
        }

        return highlight;
    }
}
