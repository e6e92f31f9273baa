using System.Text.Json;
using Kobo.Sync.Domain.KoreaderProtocol;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.KoreaderProtocol;
using Microsoft.AspNetCore.Mvc;

namespace Kobo.Sync.SyncApi.Apis.KoreaderProtocol;

/// <summary>
/// KOReader's "Progress sync" protocol (its plugin's api.json, the reference koreader-sync-server's routes),
/// under <c>KOReader:PathPrefix</c>: <c>POST /users/create</c> (registration: closed, answered as the reference
/// server answers it when closed), <c>GET /users/auth</c>, <c>PUT /syncs/progress</c>,
/// <c>GET /syncs/progress/{document}</c>, <c>GET /healthcheck</c>. Every call but registration and the health
/// check is authenticated by the <c>x-auth-user</c> / <c>x-auth-key</c> headers (<see cref="KoreaderAuthentication"/>)
/// before its body is read. Progress is <see cref="KoreaderSync"/>'s.
/// </summary>
internal static class KoreaderApi
{
    /// <summary>The largest body the front reads: a progress PUT is well under 8 KiB.</summary>
    public const long MaxBodyBytes = 64 * 1024;

    public static RouteGroupBuilder MapKoreaderProtocol(this IEndpointRouteBuilder app, string prefix)
    {
        var root = app.MapGroup(prefix)
            .WithMetadata(new RequestSizeLimitAttribute(MaxBodyBytes))
            .WithTags("KOReader progress sync")
            .ExcludeFromDescription();
        root.MapGet("/healthcheck", static () => Json(static json =>
        {
            json.WriteStartObject();
            json.WriteString("state", "OK");
            json.WriteEndObject();
        })).WithName("KoreaderHealthcheck");
        // Registration is closed: logins are made by the user's own devices (KoreaderLoginsApi).
        root.MapPost("/users/create", static () => KoreaderErrors.RegistrationDisabled).WithName("KoreaderRegister");

        var device = root.MapGroup(string.Empty).RequireAuthorization(KoreaderAuthentication.Policy);
        device.MapGet("/users/auth", static () => Json(static json =>
        {
            json.WriteStartObject();
            json.WriteString("authorized", "OK");
            json.WriteEndObject();
        })).WithName("KoreaderAuthorize");
        device.MapPut("/syncs/progress", PutProgress).WithName("KoreaderPutProgress");
        device.MapGet("/syncs/progress/{document}", GetProgress).WithName("KoreaderGetProgress");
        return root;
    }

    private static async Task<IResult> PutProgress(HttpContext context, KoreaderSync sync, CancellationToken cancellationToken)
    {
        JsonElement body;
        try
        {
            using var document = await JsonDocument.ParseAsync(context.Request.Body, default, cancellationToken);
            body = document.RootElement.Clone();
        }
        catch (JsonException)
        {
            return KoreaderErrors.InvalidFields;
        }

        var put = KoreaderProgressJson.Read(body, out var error);
        if (error is not null)
        {
            return error;
        }

        var result = await sync.PutAsync(context.Caller().User, put, cancellationToken);
        return Json(json => KoreaderProgressJson.Write(json, result));
    }

    private static async Task<IResult> GetProgress(
        string document, HttpContext context, KoreaderSync sync, CancellationToken cancellationToken)
    {
        if (!KoreaderProgressJson.IsKey(document))
        {
            return KoreaderErrors.DocumentMissing;
        }

        var ids = context.Request.Query["ids"];
        if (ids.Count > 1)
        {
            return KoreaderErrors.InvalidFields;
        }

        var identifiers = KoreaderIdentifiers.ParseQuery(ids.Count == 1 ? ids[0] : null, document, out var valid);
        if (!valid)
        {
            return KoreaderErrors.InvalidFields;
        }

        // A document the read route cannot serve was never stored: unknown, as the reference answers one.
        var view = KoreaderProgressJson.IsServable(document)
            ? await sync.GetAsync(context.Caller().User, document, identifiers, cancellationToken)
            : null;
        return Json(json => KoreaderProgressJson.Write(json, view));
    }

    private static IResult Json(Action<Utf8JsonWriter> write) => new KoreaderJsonResult(write);

    /// <summary>A 200 with a JSON body written straight to the response.</summary>
    private sealed class KoreaderJsonResult(Action<Utf8JsonWriter> write) : IResult
    {
        public async Task ExecuteAsync(HttpContext httpContext)
        {
            httpContext.Response.StatusCode = StatusCodes.Status200OK;
            httpContext.Response.ContentType = KoreaderErrors.ContentType;
            await using var json = new Utf8JsonWriter(httpContext.Response.Body);
            write(json);
            await json.FlushAsync(httpContext.RequestAborted);
        }
    }
}
