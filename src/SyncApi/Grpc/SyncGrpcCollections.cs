using System.Globalization;
using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.SyncApi.Grpc;

/// <summary>Maps collections between the gRPC messages and the application's types, field for field with REST.</summary>
internal static class SyncGrpcCollections
{
    /// <summary>
    /// The operation as sent. proto3 has no absent scalar: an empty name or id is "not given", which
    /// validation rejects as REST's missing field; a book number 0 is an invalid one.
    /// </summary>
    public static PushedCollectionOp ToDomain(CollectionOp op) => new(
        op.Op,
        op.CollectionId,
        op.Name.Length == 0 ? null : op.Name,
        op.BookNos.Count == 0 ? null : [.. op.BookNos.Select(b => b.ToString(CultureInfo.InvariantCulture))],
        op.ModifiedAt is { } at ? DeviceTime.FromUnix(at.Seconds, at.Nanos) : null);

    public static PushCollectionChangesResponse ToMessage(CollectionPushResult result)
    {
        var message = new PushCollectionChangesResponse();
        foreach (var item in result.Results)
        {
            message.Results.Add(new Contracts.Grpc.V1.ChangeResult
            {
                Id = item.Id ?? string.Empty,
                Status = item.Status,
                Version = item.Version ?? string.Empty,
                Reason = item.Reason ?? string.Empty,
            });
        }

        message.Collections.AddRange(result.Collections.Select(ToMessage));
        message.OmittedCollectionIds.AddRange(result.OmittedCollectionIds);
        return message;
    }

    public static ListCollectionsResponse ToMessage(CollectionList list)
    {
        var message = new ListCollectionsResponse { NextCursor = list.NextCursor ?? string.Empty };
        message.Collections.AddRange(list.Collections.Select(ToMessage));
        return message;
    }

    public static Contracts.Grpc.V1.Collection ToMessage(Domain.Collections.Collection collection)
    {
        var message = new Contracts.Grpc.V1.Collection
        {
            CollectionId = CollectionValidation.Format(collection.Id),
            Name = collection.Name,
            Deleted = collection.Deleted,
            CreatedAt = Timestamp.FromDateTimeOffset(collection.CreatedAt),
            ModifiedAt = Timestamp.FromDateTimeOffset(collection.ModifiedAt),
        };
        message.BookNos.AddRange(collection.Books.Select(b => b.Value));
        return message;
    }
}
