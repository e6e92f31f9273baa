using System.Text.Json;

namespace Kobo.Sync.SyncApi.Infrastructure.KoreaderProtocol;

/// <summary>
/// The errors of the KOReader front, as the reference server answers them (koreader-sync-server
/// config/errors.lua, raised by app/controllers syncs_controller.lua): a status and a JSON body
/// <c>{"code": n, "message": "..."}</c>. KOReader's plugin shows <c>message</c> when a login or a
/// registration fails (main.lua <c>doLogin</c>, <c>doRegister</c>), and reads only the status elsewhere.
/// </summary>
public static class KoreaderErrors
{
    public const string ContentType = "application/json";

    public static readonly KoreaderError Unauthorized = new(2001, StatusCodes.Status401Unauthorized, "Unauthorized");
    public static readonly KoreaderError InvalidFields = new(2003, StatusCodes.Status403Forbidden, "Invalid request");
    public static readonly KoreaderError DocumentMissing = new(2004, StatusCodes.Status403Forbidden, "Field 'document' not provided.");
    public static readonly KoreaderError RegistrationDisabled = new(
        2005, StatusCodes.Status402PaymentRequired, "User registration is disabled.");
    public static readonly KoreaderError DocumentNotServable = new(
        2007, StatusCodes.Status403Forbidden, "Field 'document' is not a document this server can serve.");

    // Beyond the reference server's table: this service's own refusals, in the same shape so the plugin shows them.
    public static readonly KoreaderError TooManyRefused = new(
        2101, StatusCodes.Status429TooManyRequests, "Too many refused logins from this address; retry later.");
    public static readonly KoreaderError Busy = new(
        2102, StatusCodes.Status503ServiceUnavailable, "Logins cannot be checked right now; retry later.");

    public static async Task WriteAsync(HttpContext context, KoreaderError error)
    {
        context.Response.StatusCode = error.Status;
        context.Response.ContentType = ContentType;
        await using var json = new Utf8JsonWriter(context.Response.Body);
        json.WriteStartObject();
        json.WriteNumber("code", error.Code);
        json.WriteString("message", error.Message);
        json.WriteEndObject();
        await json.FlushAsync(context.RequestAborted);
    }
}

/// <summary>One error of the KOReader front: its code in the reference server's table, its status and message.</summary>
public sealed record KoreaderError(int Code, int Status, string Message) : IResult
{
    public Task ExecuteAsync(HttpContext httpContext) => KoreaderErrors.WriteAsync(httpContext, this);
}
