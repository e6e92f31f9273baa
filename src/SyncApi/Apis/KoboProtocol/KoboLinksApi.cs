using System.Text.Json;
using System.Text.Json.Serialization;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;
using Microsoft.Net.Http.Headers;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// Linking a Kobo e-reader: a device of the user (bearer token) asks for a link and gets the
/// <c>apiEndpoint</c> to paste into the e-reader's configuration. The user's devices list the
/// links (never their secrets) and revoke any one of them. The rules are <see cref="KoboLinkRegistry"/>'s;
/// this maps them to HTTP.
/// </summary>
internal static class KoboLinksApi
{
    public static RouteGroupBuilder MapKoboLinksApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/v1/users/{userNo}/kobo-links")
            .RequireAuthorization()
            .WithTags("Kobo")
            .ProducesProblem(StatusCodes.Status400BadRequest)
            .ProducesProblem(StatusCodes.Status401Unauthorized)
            .ProducesProblem(StatusCodes.Status403Forbidden)
            .ProducesProblem(StatusCodes.Status404NotFound);

        group.MapPost(string.Empty, CreateLink).WithName("CreateKoboLink");
        group.MapGet(string.Empty, ListLinks).WithName("ListKoboLinks");
        group.MapDelete("/{linkId}", RevokeLink).WithName("RevokeKoboLink");
        return group;
    }

    private static async Task<Results<JsonHttpResult<KoboLinkCreated>, ProblemHttpResult>> CreateLink(
        string userNo, HttpContext context, KoboLinkRegistry registry, IOptions<KoboOptions> options, CancellationToken cancellationToken)
    {
        var secret = await registry.CreateAsync(
            context.Caller(), DeviceAuthentication.IssuedAt(context.User), RequestIds.User(userNo), cancellationToken);
        if (secret is null)
        {
            // As the token's next request would be answered once this instance learns of the revocation.
            context.Response.Headers[HeaderNames.WWWAuthenticate] = "Bearer error=\"invalid_token\"";
            return TypedResults.Problem(
                "This device has been revoked; enrol it again for a new token.",
                statusCode: StatusCodes.Status401Unauthorized, title: "Unauthorized");
        }

        var endpoint = KoboUrls.Base(options.Value, context) + "/kobo/" + secret;
        return TypedResults.Json(
            new KoboLinkCreated(endpoint), KoboLinkJsonContext.Default.KoboLinkCreated, statusCode: StatusCodes.Status201Created);
    }

    private static async Task<JsonHttpResult<KoboLinkList>> ListLinks(
        string userNo, HttpContext context, KoboLinkRegistry registry, CancellationToken cancellationToken)
    {
        var links = await registry.ListAsync(context.Caller(), RequestIds.User(userNo), cancellationToken);
        return TypedResults.Json(new KoboLinkList(links), KoboLinkJsonContext.Default.KoboLinkList);
    }

    private static async Task<NoContent> RevokeLink(
        string userNo, string linkId, HttpContext context, KoboLinkRegistry registry, CancellationToken cancellationToken)
    {
        await registry.RevokeAsync(context.Caller(), RequestIds.User(userNo), linkId, cancellationToken);
        return TypedResults.NoContent();
    }
}

/// <summary>The answer to a link request: the <c>api_endpoint</c> value for <c>Kobo eReader.conf</c>.</summary>
internal sealed record KoboLinkCreated(string ApiEndpoint);

/// <summary>
/// The user's links, newest first, live and revoked: all of them in one answer (a user keeps at most 20
/// live and 20 revoked links). <c>revokedAt</c> is left out of a live link.
/// </summary>
internal sealed record KoboLinkList(IReadOnlyList<KoboLinkView> Links);

[JsonSourceGenerationOptions(JsonSerializerDefaults.Web, DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(KoboLinkCreated))]
[JsonSerializable(typeof(KoboLinkList))]
internal sealed partial class KoboLinkJsonContext : JsonSerializerContext;
