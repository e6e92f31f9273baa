using System.Text.Json;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.SyncApi.Infrastructure.Auth;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// The reading-services calls of a Kobo device, served by Kobo.Sync itself on the host initialization
/// advertises (<c>/kobo/{secret}</c>): <c>POST api/v3/content/checkforchanges</c> and
/// <c>GET</c>/<c>PATCH api/v3/content/{contentId}/annotations</c> (docs/kobo.md, "Annotations").
/// </summary>
internal static class KoboAnnotationsApi
{
    private const string ContentType = "application/json; charset=utf-8";

    public static RouteGroupBuilder MapKoboAnnotations(this RouteGroupBuilder group)
    {
        group.MapPost("/api/v3/content/checkforchanges", CheckForChanges).WithName("KoboCheckForChanges");
        group.MapGet("/api/v3/content/{contentId}/annotations", GetAnnotations).WithName("KoboGetAnnotations");
        group.MapPatch("/api/v3/content/{contentId}/annotations", PatchAnnotations).WithName("KoboPatchAnnotations");
        return group;
    }

    /// <summary>
    /// The e-reader: its link's key (user, linking device and a prefix of the secret's hash, never the
    /// secret), as admission knows it, so that two e-readers linked by one device are told apart.
    /// </summary>
    private static string EReader(HttpContext context) =>
        context.User.Identity is DeviceIdentity identity ? identity.DeviceKey : context.Caller().DeviceId;

    /// <summary>A bare JSON array of the content ids whose annotations the device should download.</summary>
    private static async Task<IResult> CheckForChanges(
        HttpContext context, KoboAnnotations annotations, CancellationToken cancellationToken)
    {
        using var body = await KoboAnnotationJson.ReadAsync(context.Request, cancellationToken);
        var changed = await annotations.CheckForChangesAsync(
            context.Caller(), EReader(context), KoboAnnotationJson.ReadCheck(body.RootElement), cancellationToken);
        return TypedResults.Text(JsonSerializer.Serialize(changed, KoboAnnotationsJsonContext.Default.IReadOnlyListString), ContentType);
    }

    private static async Task<IResult> GetAnnotations(
        string contentId, HttpContext context, KoboAnnotations annotations, CancellationToken cancellationToken)
    {
        var set = await annotations.GetAsync(context.Caller(), EReader(context), contentId, cancellationToken);
        switch (set.Outcome)
        {
            case KoboSetOutcome.NeverReceived:
                // Never an empty set here: the device would replace its annotations of the book with it.
                return TypedResults.Problem(
                    "This device has sent no annotations of this book, so the service answers none rather than an empty set.",
                    statusCode: StatusCodes.Status404NotFound, title: "No annotations received");
            case KoboSetOutcome.TooMany:
                return TypedResults.Problem(
                    $"This book has more than {KoboAnnotations.MaxAnnotationsPerBook} annotations, " +
                    $"or more than {KoboAnnotations.MaxAnnotationBytesPerBook / (1024 * 1024)} MiB of them; " +
                    $"a download cut short would delete the rest on the device.",
                    statusCode: StatusCodes.Status409Conflict, title: "Too many annotations");
        }

        context.Response.Headers.ETag = set.ETag;
        if (context.Request.Headers.IfNoneMatch.ToString() == set.ETag)
        {
            return TypedResults.StatusCode(StatusCodes.Status304NotModified);
        }

        using var buffer = new MemoryStream();
        await using (var writer = new Utf8JsonWriter(buffer))
        {
            KoboAnnotationJson.WriteSet(writer, set.Highlights.Where(KoboAnnotationJson.IsServable));
        }

        return TypedResults.Bytes(buffer.ToArray(), ContentType);
    }

    /// <summary>
    /// A push of the device's changes; 200 with one result per annotation (updated first, then deleted).
    /// A body that is not the expected JSON is 400 and stores nothing: the device keeps its changes.
    /// </summary>
    private static async Task<IResult> PatchAnnotations(
        string contentId, HttpContext context, KoboAnnotations annotations, CancellationToken cancellationToken)
    {
        using var body = await KoboAnnotationJson.ReadAsync(context.Request, cancellationToken);
        var (updated, deleted) = KoboAnnotationJson.ReadPatch(body.RootElement);
        var results = await annotations.PatchAsync(context.Caller(), EReader(context), contentId, updated, deleted, cancellationToken);
        return TypedResults.Text(
            JsonSerializer.Serialize(new KoboPatchResponse(results), KoboAnnotationsJsonContext.Default.KoboPatchResponse), ContentType);
    }
}

/// <summary>The answer to a PATCH: what became of each annotation, updated ones first, then deleted ones.</summary>
internal sealed record KoboPatchResponse(IReadOnlyList<KoboAnnotationResult> Results);
