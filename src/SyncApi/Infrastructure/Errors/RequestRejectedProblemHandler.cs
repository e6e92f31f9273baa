using Kobo.Sync.SyncApi.Infrastructure.Live;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Wire;
using Microsoft.AspNetCore.Diagnostics;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Net.Http.Headers;

namespace Kobo.Sync.SyncApi.Infrastructure.Errors;

/// <summary>
/// The one place REST errors are mapped, the application's rejections from <see cref="RejectionKinds"/> (the
/// table gRPC's statuses come from too): a rejected request becomes an RFC 9457 problem+json with a
/// precise 4xx (the <c>traceId</c> is added by the problem details setup); a client that went away
/// gets no answer; a database that cannot serve the request now, or an instance over capacity (a live
/// pull's own admission), is a 503 with <c>Retry-After</c>. Anything else is left to the default handler as a 500.
/// </summary>
internal sealed class RequestRejectedProblemHandler(IProblemDetailsService problems) : IExceptionHandler
{
    /// <summary>The <c>errors</c> key of a body that could not be read as the endpoint's JSON.</summary>
    public const string BodyField = "body";

    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        if (exception is OperationCanceledException && httpContext.RequestAborted.IsCancellationRequested)
        {
            httpContext.Response.StatusCode = HttpStatuses.ClientClosedRequest;
            return true;
        }

        var problem = ProblemFor(httpContext, exception);
        if (problem is null)
        {
            return false;
        }

        httpContext.Response.StatusCode = problem.Status!.Value;
        return await problems.TryWriteAsync(new ProblemDetailsContext
        {
            HttpContext = httpContext,
            ProblemDetails = problem,
            Exception = exception,
        });
    }

    /// <summary>
    /// The problem for <paramref name="exception"/> (its headers set on the response), or null for one this
    /// handler leaves to the default: a row of <see cref="RejectionKinds"/>, or what only REST meets.
    /// </summary>
    internal static ProblemDetails? ProblemFor(HttpContext httpContext, Exception exception) =>
        RejectionKinds.Of(exception) is { } kind ? Rejected(httpContext, kind, exception) : exception switch
        {
            BadHttpRequestException { InnerException: System.Text.Json.JsonException json } =>
                Problem(
                    StatusCodes.Status400BadRequest, "Invalid request", $"The body is not the expected JSON: {json.Message}", BodyField),
            BadHttpRequestException bad => Problem(bad.StatusCode, "Bad request", bad.Message),
            // The framework reads a JSON body in the charset its Content-Type names, and throws when it has no such encoding.
            InvalidOperationException when UnknownCharset(httpContext.Request) is { } charset => Problem(
                StatusCodes.Status415UnsupportedMediaType, "Unsupported media type",
                $"The body's charset '{charset}' is not one this service reads; send the JSON in UTF-8.", BodyField),
            DeviceTokenLapsedException lapsed => Unauthorized(httpContext, lapsed.Message),
            _ => null,
        };

    private static ProblemDetails Rejected(HttpContext httpContext, RejectionKind kind, Exception exception)
    {
        var problem = Problem(kind.HttpStatus, kind.Title, exception.Message, kind.Field?.Invoke(exception));
        if (kind.Setting?.Invoke(exception) is { } setting)
        {
            problem.Extensions["setting"] = setting;
        }

        if (kind.RetryAfter?.Invoke(exception) is { } retryAfter)
        {
            httpContext.Response.Headers.RetryAfter = RetryAdvice.HeaderSeconds(retryAfter);
            problem.Extensions[RetryAdvice.ProblemExtension] = RetryAdvice.Milliseconds(retryAfter);
        }

        return problem;
    }

    private static string? UnknownCharset(HttpRequest request)
    {
        if (!MediaTypeHeaderValue.TryParse(request.ContentType, out var type) || type.Charset is not { Length: > 0 } charset)
        {
            return null;
        }

        try
        {
            _ = System.Text.Encoding.GetEncoding(charset.Value!.Trim('"'));
            return null;
        }
        catch (ArgumentException)
        {
            return charset.Value;
        }
    }

    private static ProblemDetails Unauthorized(HttpContext httpContext, string detail)
    {
        httpContext.Response.Headers.WWWAuthenticate = "Bearer error=\"invalid_token\"";
        return Problem(StatusCodes.Status401Unauthorized, "Unauthorized", detail);
    }

    private static ProblemDetails Problem(int status, string title, string detail, string? field = null)
    {
        var problem = new ProblemDetails { Status = status, Title = title, Detail = detail };
        if (field is not null)
        {
            problem.Extensions["errors"] = new Dictionary<string, string[]> { [field] = [detail] };
        }

        return problem;
    }
}
