using System.Text.Json;
using System.Text.Json.Serialization;
using Kobo.Sync.Domain.KoreaderProtocol;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Kobo.Sync.SyncApi.Infrastructure.KoreaderProtocol;
using Microsoft.AspNetCore.Http.HttpResults;
using Microsoft.Extensions.Options;
using Microsoft.Net.Http.Headers;

namespace Kobo.Sync.SyncApi.Apis.KoreaderProtocol;

/// <summary>
/// KOReader logins, made by a device of the user (bearer token) as a Kobo link is: the answer carries the
/// user name, the password (shown once) and the server address to type into KOReader's Progress sync
/// settings. The user's devices list the logins (never a key) and revoke any one. The rules are
/// <see cref="KoreaderCredentialRegistry"/>'s.
/// </summary>
internal static class KoreaderLoginsApi
{
    public static RouteGroupBuilder MapKoreaderLoginsApi(this IEndpointRouteBuilder app)
    {
        var group = app.MapGroup("/v1/users/{userNo}/koreader-logins")
            .RequireAuthorization()
            .WithTags("KOReader")
            .ProducesProblem(StatusCodes.Status400BadRequest)
            .ProducesProblem(StatusCodes.Status401Unauthorized)
            .ProducesProblem(StatusCodes.Status403Forbidden)
            .ProducesProblem(StatusCodes.Status404NotFound);

        group.MapPost(string.Empty, Create).WithName("CreateKoreaderLogin");
        group.MapGet(string.Empty, List).WithName("ListKoreaderLogins");
        group.MapDelete("/{username}", Revoke).WithName("RevokeKoreaderLogin");
        return group;
    }

    private static async Task<Results<JsonHttpResult<KoreaderLoginCreated>, ProblemHttpResult>> Create(
        string userNo, HttpContext context, KoreaderCredentialRegistry registry,
        IOptions<KoboOptions> kobo, IOptions<KoreaderOptions> koreader,
        CancellationToken cancellationToken)
    {
        var login = await registry.CreateAsync(
            context.Caller(), DeviceAuthentication.IssuedAt(context.User), RequestIds.User(userNo), cancellationToken);
        if (login is null)
        {
            context.Response.Headers[HeaderNames.WWWAuthenticate] = "Bearer error=\"invalid_token\"";
            return TypedResults.Problem(
                "This device has been revoked; enrol it again for a new token.",
                statusCode: StatusCodes.Status401Unauthorized, title: "Unauthorized");
        }

        var server = KoboUrls.Base(kobo.Value, context) + koreader.Value.PathPrefix;
        return TypedResults.Json(
            new KoreaderLoginCreated(login.Username, login.Password, server), KoreaderLoginJsonContext.Default.KoreaderLoginCreated,
            statusCode: StatusCodes.Status201Created);
    }

    private static async Task<JsonHttpResult<KoreaderLoginList>> List(
        string userNo, HttpContext context, KoreaderCredentialRegistry registry, CancellationToken cancellationToken)
    {
        var logins = await registry.ListAsync(context.Caller(), RequestIds.User(userNo), cancellationToken);
        return TypedResults.Json(new KoreaderLoginList(logins), KoreaderLoginJsonContext.Default.KoreaderLoginList);
    }

    private static async Task<NoContent> Revoke(
        string userNo, string username, HttpContext context, KoreaderCredentialRegistry registry, CancellationToken cancellationToken)
    {
        await registry.RevokeAsync(context.Caller(), RequestIds.User(userNo), username, cancellationToken);
        return TypedResults.NoContent();
    }
}

/// <summary>A new login: what to type into KOReader (Progress sync → Custom sync server, then Register / Login → Login).</summary>
internal sealed record KoreaderLoginCreated(string Username, string Password, string Server);

/// <summary>The user's logins, newest first, live and revoked; <c>revokedAt</c> is left out of a live one.</summary>
internal sealed record KoreaderLoginList(IReadOnlyList<KoreaderCredentialView> Logins);

[JsonSourceGenerationOptions(JsonSerializerDefaults.Web, DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(KoreaderLoginCreated))]
[JsonSerializable(typeof(KoreaderLoginList))]
internal sealed partial class KoreaderLoginJsonContext : JsonSerializerContext;
