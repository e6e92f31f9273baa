using Microsoft.AspNetCore.WebUtilities;
using Microsoft.Extensions.Options;
using JsonOptions = Microsoft.AspNetCore.Http.Json.JsonOptions;

namespace Kobo.Sync.SyncApi.Infrastructure.Errors;

/// <summary>
/// The last problem-details writer. The framework's own writer declines a request whose <c>Accept</c>
/// lists no JSON type, and then a refusal left with an empty body or, for a refused token, failed as a
/// 500. A server may disregard <c>Accept</c> (RFC 9110, 12.5.1), and a device needs the reason more
/// than the media type it asked for: this writer sends the same problem+json, customised the same way.
/// </summary>
internal sealed class ProblemJsonWriter(IOptions<ProblemDetailsOptions> options, IOptions<JsonOptions> json) : IProblemDetailsWriter
{
    public const string ContentType = "application/problem+json";

    public bool CanWrite(ProblemDetailsContext context) => true;

    public ValueTask WriteAsync(ProblemDetailsContext context)
    {
        var problem = context.ProblemDetails;
        problem.Status ??= context.HttpContext.Response.StatusCode;
        problem.Title ??= ReasonPhrases.GetReasonPhrase(problem.Status.Value);
        options.Value.CustomizeProblemDetails?.Invoke(context);
        return new ValueTask(context.HttpContext.Response.WriteAsJsonAsync(problem, json.Value.SerializerOptions, ContentType));
    }

    /// <summary>
    /// A detail for the problems nobody wrote one for: the framework's answers to a path no endpoint
    /// serves (404) or a method it does not take (405), written by the status code pages.
    /// </summary>
    public static string DefaultDetail(HttpContext http) => http.Response.StatusCode switch
    {
        StatusCodes.Status404NotFound => "Nothing is served at this path; the API is described at /openapi/v1.json.",
        StatusCodes.Status405MethodNotAllowed => $"This path does not take the {http.Request.Method} method.",
        var status => ReasonPhrases.GetReasonPhrase(status) is { Length: > 0 } reason ? reason + "." : "The request was refused.",
    };
}
