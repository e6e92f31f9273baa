using System.Text.Json.Serialization;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Requests;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.AspNetCore.OpenApi;
using Microsoft.OpenApi;

namespace Kobo.Sync.SyncApi.Apis;

/// <summary>
/// A user's collections over REST: a page of the live ones, one with its books, and a push of operations
/// (create or rename, delete, add and remove books), each with its own result. All call
/// <see cref="CollectionSync"/>, shared with gRPC and the Kobo protocol.
/// </summary>
internal static class CollectionsApi
{
    public static RouteGroupBuilder MapCollectionsApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/v1/users/{userNo}/collections")
            .RequireAuthorization()
            .WithTags("Collections")
            .ProducesProblem(StatusCodes.Status400BadRequest)
            .ProducesProblem(StatusCodes.Status401Unauthorized)
            .ProducesProblem(StatusCodes.Status403Forbidden)
            .ProducesProblem(StatusCodes.Status404NotFound);

        group.MapGet(string.Empty, ListCollections).WithName("ListCollections");
        group.MapGet("/{collectionId}", GetCollection).WithName("GetCollection");
        group.MapPost("/changes", PushCollectionChanges).WithName("PushCollectionChanges")
            .ProducesProblem(StatusCodes.Status409Conflict)
            .ProducesProblem(StatusCodes.Status413PayloadTooLarge);
        return group;
    }

    private static async Task<JsonHttpResult<CollectionPage>> ListCollections(
        string userNo, string? pageSize, string? cursor, HttpContext context,
        CollectionSync collections, CancellationToken cancellationToken)
    {
        var list = await collections.ListAsync(
            context.Caller(), RequestIds.User(userNo), DeviceRequest.PageSize(pageSize), cursor, cancellationToken);
        return TypedResults.Json(new CollectionPage(list.Collections, list.NextCursor), SyncJsonContext.Default.CollectionPage);
    }

    private static async Task<JsonHttpResult<Collection>> GetCollection(
        string userNo, string collectionId, HttpContext context, CollectionSync collections, CancellationToken cancellationToken)
    {
        var collection = await collections.GetAsync(context.Caller(), RequestIds.User(userNo), collectionId, cancellationToken);
        return TypedResults.Json(collection, SyncJsonContext.Default.Collection);
    }

    private static async Task<JsonHttpResult<CollectionPushResponse>> PushCollectionChanges(
        string userNo, CollectionPushRequest? body, HttpContext context, CollectionSync collections, CancellationToken cancellationToken)
    {
        var result = await collections.PushAsync(
            context.Caller(), RequestIds.User(userNo), body?.Changes?.Select(c => c?.ToDomain()).ToArray(), cancellationToken);
        return TypedResults.Json(
            new CollectionPushResponse(result.Results, result.Collections, result.OmittedCollectionIds),
            SyncJsonContext.Default.CollectionPushResponse);
    }
}

/// <summary>The push body: <c>{ "changes": [ ... ] }</c>, applied in order.</summary>
public sealed record CollectionPushRequest(IReadOnlyList<PushedCollectionOpJson?>? Changes);

/// <summary>
/// One operation of a REST push as JSON carries it: <see cref="PushedCollectionOp"/> field for field, with
/// <c>modifiedAt</c> kept as the text the device sent and the name read by <see cref="DeviceTextJsonConverter"/>,
/// so a broken time or half a surrogate pair rejects that operation (as over gRPC), not the whole body.
/// </summary>
public sealed record PushedCollectionOpJson(
    string? Op,
    string? CollectionId,
    [property: JsonConverter(typeof(DeviceTextJsonConverter))] string? Name,
    IReadOnlyList<string?>? BookNos,
    string? ModifiedAt)
{
    public PushedCollectionOp ToDomain() =>
        new(Op, CollectionId, Name, BookNos, ModifiedAt is null ? null : DeviceTime.FromText(ModifiedAt));

    /// <summary>
    /// Describes what the OpenAPI generator cannot see through, as <see cref="PushedChangeJson.DescribeSchema"/>
    /// does for a highlight push: the name read by a converter is a string still, and <c>modifiedAt</c> text is a date and time.
    /// </summary>
    public static Task DescribeSchema(OpenApiSchema schema, OpenApiSchemaTransformerContext context, CancellationToken cancellationToken)
    {
        if (context.JsonPropertyInfo is { DeclaringType: var type, Name: var name } property && type == typeof(PushedCollectionOpJson))
        {
            if (property.CustomConverter is DeviceTextJsonConverter)
            {
                schema.Type = JsonSchemaType.String | JsonSchemaType.Null;
            }
            else if (name == "modifiedAt")
            {
                schema.Format = "date-time";
            }
        }

        return Task.CompletedTask;
    }
}

/// <summary>
/// The push answer: one result per operation, in request order; the touched collections as stored after
/// the push, within <c>Paging:MaxPageBytes</c>; and the ids of the touched ones past it (empty when all fit).
/// </summary>
public sealed record CollectionPushResponse(
    IReadOnlyList<ChangeResult> Results, IReadOnlyList<Collection> Collections, IReadOnlyList<string> OmittedCollectionIds);

/// <summary>A page of live collections; <c>nextCursor</c> is written as null on the last page, as on the other pages.</summary>
internal sealed record CollectionPage(
    IReadOnlyList<Collection> Collections,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.Never)] string? NextCursor);
