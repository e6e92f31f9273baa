using System.Text.Json;
using System.Text.Json.Serialization;
using Kobo.Sync.Domain.Reading;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Kobo;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;
using Microsoft.Net.Http.Headers;

namespace Kobo.Sync.SyncApi.Apis.Kobo;

/// <summary>
/// Linking a Kobo e-reader: a device of the user (bearer token) asks for a link and gets the
/// <c>apiEndpoint</c> to paste into the e-reader's configuration. The link is bound to the user and to
/// the asking device: revoking that device revokes the link for good.
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
                "This device has been revoked; enrol it again for a new token.", statusCode: StatusCodes.Status401Unauthorized, title: "Unauthorized");
        }

        var endpoint = KoboUrls.Base(options.Value, context) + "/kobo/" + secret;
        return TypedResults.Json(new KoboLinkCreated(endpoint), KoboLinkJsonContext.Default.KoboLinkCreated, statusCode: StatusCodes.Status201Created);
    }
}

/// <summary>The answer to a link request: the <c>api_endpoint</c> value for <c>Kobo eReader.conf</c>.</summary>
internal sealed record KoboLinkCreated(string ApiEndpoint);

[JsonSourceGenerationOptions(JsonSerializerDefaults.Web)]
[JsonSerializable(typeof(KoboLinkCreated))]
internal sealed partial class KoboLinkJsonContext : JsonSerializerContext;
