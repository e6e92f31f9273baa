using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Collections;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Admission;
using Kobo.Sync.SyncApi.Infrastructure.Live;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Microsoft.AspNetCore.Diagnostics;
using Microsoft.AspNetCore.Mvc;
using Microsoft.Net.Http.Headers;

namespace Kobo.Sync.SyncApi.Infrastructure.Errors;

/// <summary>
/// The one place REST errors are mapped: a rejected request becomes an RFC 9457 problem+json with a
/// precise 4xx (the <c>traceId</c> is added by the problem details setup); a client that went away
/// gets no answer; a database that cannot serve the request now, or an instance over capacity (a live
/// pull's own admission), is a 503 with <c>Retry-After</c>. Anything else is left to the default handler as a 500.
/// </summary>
internal sealed class RequestRejectedProblemHandler(IProblemDetailsService problems) : IExceptionHandler
{
    /// <summary>Logged status for a request the client abandoned (nginx's convention); never sent.</summary>
    public const int ClientClosedRequest = 499;

    /// <summary>The <c>errors</c> key of a body that could not be read as the endpoint's JSON.</summary>
    public const string BodyField = "body";

    public async ValueTask<bool> TryHandleAsync(HttpContext httpContext, Exception exception, CancellationToken cancellationToken)
    {
        if (exception is OperationCanceledException && httpContext.RequestAborted.IsCancellationRequested)
        {
            httpContext.Response.StatusCode = ClientClosedRequest;
            return true;
        }

        var problem = exception switch
        {
            InvalidRequestException invalid => Problem(StatusCodes.Status400BadRequest, "Invalid request", invalid.Message, invalid.Field),
            ResourceNotFoundException notFound => Problem(StatusCodes.Status404NotFound, "Not found", notFound.Message),
            AccessDeniedException denied => Problem(StatusCodes.Status403Forbidden, "Forbidden", denied.Message),
            BatchTooLargeException tooLarge => Problem(StatusCodes.Status413PayloadTooLarge, "Batch too large", tooLarge.Message, BatchTooLargeException.Field),
            TooManyRevokedDevicesException tooMany => Problem(StatusCodes.Status409Conflict, "Too many revoked devices", tooMany.Message),
            HighlightQuotaExceededException quota => Problem(StatusCodes.Status409Conflict, "Highlight quota exceeded", quota.Message),
            TombstoneQuotaExceededException tombstones => Tombstones(tombstones),
            CollectionBoundExceededException bound => Bound(bound),
            SyncTokenExpiredException expired => Problem(StatusCodes.Status410Gone, "Sync token expired", expired.Message, SyncTokens.Field),
            BadHttpRequestException { InnerException: System.Text.Json.JsonException json } =>
                Problem(StatusCodes.Status400BadRequest, "Invalid request", $"The body is not the expected JSON: {json.Message}", BodyField),
            BadHttpRequestException bad => Problem(bad.StatusCode, "Bad request", bad.Message),
            // The framework reads a JSON body in the charset its Content-Type names, and throws when it has no such encoding.
            InvalidOperationException when UnknownCharset(httpContext.Request) is { } charset => Problem(
                StatusCodes.Status415UnsupportedMediaType, "Unsupported media type", $"The body's charset '{charset}' is not one this service reads; send the JSON in UTF-8.", BodyField),
            StorageUnavailableException unavailable => Unavailable(httpContext, unavailable.Message, unavailable.RetryAfter),
            InstanceOverloadedException overloaded => Unavailable(httpContext, overloaded.Message, overloaded.RetryAfter),
            DeviceTokenLapsedException lapsed => Unauthorized(httpContext, lapsed.Message),
            _ => null,
        };
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

    private static ProblemDetails Tombstones(TombstoneQuotaExceededException tombstones)
    {
        var problem = Problem(StatusCodes.Status409Conflict, "Tombstone quota exceeded", tombstones.Message);
        problem.Extensions["setting"] = TombstoneQuotaExceededException.Setting;
        return problem;
    }

    private static ProblemDetails Bound(CollectionBoundExceededException bound)
    {
        var problem = Problem(StatusCodes.Status409Conflict, "Collection bound exceeded", bound.Message);
        problem.Extensions["setting"] = bound.Setting;
        return problem;
    }

    private static ProblemDetails Unauthorized(HttpContext httpContext, string detail)
    {
        httpContext.Response.Headers.WWWAuthenticate = "Bearer error=\"invalid_token\"";
        return Problem(StatusCodes.Status401Unauthorized, "Unauthorized", detail);
    }

    private static ProblemDetails Unavailable(HttpContext httpContext, string detail, TimeSpan retryAfter)
    {
        httpContext.Response.Headers.RetryAfter = RetryAdvice.HeaderSeconds(retryAfter);
        var problem = Problem(StatusCodes.Status503ServiceUnavailable, "Service unavailable", detail);
        problem.Extensions[RetryAdvice.ProblemExtension] = RetryAdvice.Milliseconds(retryAfter);
        return problem;
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
