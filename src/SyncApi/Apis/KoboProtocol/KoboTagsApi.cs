using System.Text.Json;
using System.Text.Json.Nodes;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// The device's tags (its collections), as calibre-web serves them (cps/kobo.py, <c>HandleTagCreate</c>,
/// <c>HandleTagUpdate</c>, <c>HandleTagAddItem</c>, <c>HandleTagRemoveItem</c>), on the native collections
/// (<see cref="CollectionSync"/>) shared with REST and gRPC, so the same conflict rule applies:
/// <list type="bullet">
/// <item><c>POST v1/library/tags</c> <c>{Name, Items}</c>: creates the tag, 201 with its id as a JSON
/// string. A name that is a live collection's already is that collection (its items are added), so a
/// retried create makes no second one.</item>
/// <item><c>PUT v1/library/tags/{id}</c> <c>{Name}</c> renames, <c>DELETE v1/library/tags/{id}</c> deletes: 200.</item>
/// <item><c>POST v1/library/tags/{id}/items</c> adds (201), <c>.../items/delete</c> removes (200) the
/// <c>Items</c>: <c>{RevisionId, Type: "ProductRevisionTagItem"}</c>. An item of another type, or whose
/// RevisionId is not one of the user's books, is skipped.</item>
/// </list>
/// A tag id that is not a live collection of the user is 404; a body without the fields is 400. Kobo requests
/// carry no device time: the server's time is the edit's time, as for a reading state put without one.
/// </summary>
internal static class KoboTagsApi
{
    public static RouteGroupBuilder MapKoboTags(this RouteGroupBuilder kobo)
    {
        kobo.MapPost("/v1/library/tags", Create).WithName("KoboCreateTag");
        kobo.MapPut("/v1/library/tags/{tagId}", Rename).WithName("KoboRenameTag");
        kobo.MapDelete("/v1/library/tags/{tagId}", Delete).WithName("KoboDeleteTag");
        kobo.MapPost("/v1/library/tags/{tagId}/items", AddItems).WithName("KoboAddTagItems");
        kobo.MapPost("/v1/library/tags/{tagId}/items/delete", RemoveItems).WithName("KoboRemoveTagItems");
        return kobo;
    }

    private static async Task<IResult> Create(
        HttpContext context, CollectionSync collections, TimeProvider clock, CancellationToken cancellationToken)
    {
        using var body = await KoboJson.ReadBodyAsync(context.Request, cancellationToken);
        var name = Name(body.RootElement);
        var books = Items(body.RootElement);
        var caller = context.Caller();
        var id = await collections.FindLiveByNameAsync(caller.User, name, cancellationToken) ?? Guid.NewGuid();
        var at = Now(clock);
        List<PushedCollectionOp?> ops =
        [
            new PushedCollectionOp(CollectionValidation.Upsert, CollectionValidation.Format(id), name, null, at),
        ];
        if (books.Count > 0)
        {
            ops.Add(new PushedCollectionOp(CollectionValidation.AddBooks, CollectionValidation.Format(id), null, books, at));
        }

        await PushAsync(collections, caller, ops, cancellationToken);
        return KoboJson.Of(JsonValue.Create(CollectionValidation.Format(id)), StatusCodes.Status201Created);
    }

    private static async Task<IResult> Rename(
        string tagId, HttpContext context, CollectionSync collections, TimeProvider clock, CancellationToken cancellationToken)
    {
        var id = await LiveAsync(tagId, context, collections, cancellationToken);
        using var body = await KoboJson.ReadBodyAsync(context.Request, cancellationToken);
        var name = Name(body.RootElement);
        await PushAsync(
            collections, context.Caller(),
            [new PushedCollectionOp(CollectionValidation.Upsert, id, name, null, Now(clock))], cancellationToken);
        return Done(StatusCodes.Status200OK);
    }

    private static async Task<IResult> Delete(
        string tagId, HttpContext context, CollectionSync collections, TimeProvider clock, CancellationToken cancellationToken)
    {
        var id = await LiveAsync(tagId, context, collections, cancellationToken);
        await PushAsync(
            collections, context.Caller(),
            [new PushedCollectionOp(CollectionValidation.Delete, id, null, null, Now(clock))], cancellationToken);
        return Done(StatusCodes.Status200OK);
    }

    private static Task<IResult> AddItems(
        string tagId, HttpContext context, CollectionSync collections, TimeProvider clock, CancellationToken cancellationToken) =>
        ChangeItemsAsync(
            tagId, CollectionValidation.AddBooks, StatusCodes.Status201Created, context, collections, clock, cancellationToken);

    private static Task<IResult> RemoveItems(
        string tagId, HttpContext context, CollectionSync collections, TimeProvider clock, CancellationToken cancellationToken) =>
        ChangeItemsAsync(tagId, CollectionValidation.RemoveBooks, StatusCodes.Status200OK, context, collections, clock, cancellationToken);

    private static async Task<IResult> ChangeItemsAsync(
        string tagId, string op, int status, HttpContext context,
        CollectionSync collections, TimeProvider clock, CancellationToken cancellationToken)
    {
        var id = await LiveAsync(tagId, context, collections, cancellationToken);
        using var body = await KoboJson.ReadBodyAsync(context.Request, cancellationToken);
        var books = Items(body.RootElement);
        if (books.Count > 0)
        {
            await PushAsync(collections, context.Caller(), [new PushedCollectionOp(op, id, null, books, Now(clock))], cancellationToken);
        }

        return Done(status);
    }

    /// <summary>
    /// The tag's id when it is a live collection of the caller's; 404 otherwise, as calibre-web answers a shelf it does not have.
    /// </summary>
    private static async Task<string> LiveAsync(
        string tagId, HttpContext context, CollectionSync collections, CancellationToken cancellationToken)
    {
        var caller = context.Caller();
        if (!CollectionValidation.TryParseId(tagId, out _))
        {
            throw NoSuchTag();
        }

        Collection collection;
        try
        {
            collection = await collections.GetAsync(caller, caller.User, tagId, cancellationToken);
        }
        catch (ResourceNotFoundException)
        {
            throw NoSuchTag();
        }

        return collection.Deleted ? throw NoSuchTag() : CollectionValidation.Format(collection.Id);
    }

    /// <summary>Pushes the operations; one the rules reject (a name too long, too many items) is the request's 400.</summary>
    private static async Task PushAsync(
        CollectionSync collections, DeviceCaller caller, IReadOnlyList<PushedCollectionOp?> ops, CancellationToken cancellationToken)
    {
        var result = await collections.PushAsync(caller, caller.User, ops, cancellationToken, skipBooksNotInLibrary: true);
        if (result.Results.FirstOrDefault(r => r.Status == ChangeStatus.Rejected) is { } rejected)
        {
            var field = rejected.Reason is { } reason && reason.StartsWith("name:", StringComparison.Ordinal) ? "Name" : "Items";
            throw new InvalidRequestException(field, rejected.Reason ?? "The tag change was refused.");
        }
    }

    private static string Name(JsonElement body)
    {
        if (body.ValueKind != JsonValueKind.Object || !body.TryGetProperty("Name", out var name) || name.ValueKind != JsonValueKind.String)
        {
            throw new InvalidRequestException("Name", "The body must carry Name, the tag's name (1 to 256 characters).");
        }

        var text = KoboJson.StringOf(name)
            ?? throw new InvalidRequestException("Name", "Name holds half a surrogate pair, which no text can carry.");
        if (CollectionValidation.NameProblem(text) is { } problem)
        {
            throw new InvalidRequestException("Name", problem);
        }

        return text!;
    }

    /// <summary>
    /// The book numbers of the body's <c>Items</c> (required, an array); items of another type or of no book of this service are skipped.
    /// </summary>
    private static List<string?> Items(JsonElement body)
    {
        if (body.ValueKind != JsonValueKind.Object || !body.TryGetProperty("Items", out var items)
            || items.ValueKind != JsonValueKind.Array)
        {
            throw new InvalidRequestException(
                "Items", "The body must carry Items, an array of {RevisionId, Type: \"ProductRevisionTagItem\"}.");
        }

        var books = new List<string?>();
        foreach (var item in items.EnumerateArray())
        {
            if (item.ValueKind == JsonValueKind.Object
                && item.TryGetProperty("Type", out var type) && type.ValueKind == JsonValueKind.String
                    && type.ValueEquals(KoboTags.ItemType)
                && item.TryGetProperty("RevisionId", out var revision) && revision.ValueKind == JsonValueKind.String
                && BookUuid.TryParse(KoboJson.StringOf(revision), out var book))
            {
                books.Add(book.ToString());
            }
        }

        return books;
    }

    private static DeviceTime Now(TimeProvider clock) => DeviceTime.FromInstant(clock.GetUtcNow());

    private static IResult Done(int status) => TypedResults.Text(string.Empty, KoboJson.ContentType, statusCode: status);

    private static ResourceNotFoundException NoSuchTag() => new("This user has no such tag.");
}
