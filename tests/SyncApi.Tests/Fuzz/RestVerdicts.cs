using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Sends a <see cref="RestCall"/> and judges the answer: never a 5xx; every refusal an RFC 9457
/// problem+json with a detail; a token that must be refused gets a 401; what an accepted request says
/// it stored goes into the <see cref="FuzzLedger"/>. Returns null when all is right.
/// </summary>
internal static class RestVerdicts
{
    /// <summary>Kestrel's <c>Limits.MaxRequestLineSize</c> (8 KiB): the method, target and version must fit.</summary>
    private const int KestrelRequestLineLimit = 8 * 1024 - 16;

    public static async Task<string?> CheckAsync(HttpClient rest, RestCall call, FuzzLedger ledger, CancellationToken cancellationToken)
    {
        HttpResponseMessage sent;
        try
        {
            sent = await SendAsync(rest, call, cancellationToken);
        }
        catch (HttpRequestException) when (call.Target.Length > KestrelRequestLineLimit)
        {
            // Kestrel answers a request line past its limit with 414 and closes the connection while
            // the client is still sending the body: the client sees the reset. No service code ran.
            return null;
        }
        catch (HttpRequestException) when (call.Target.StartsWith("/kobo/", StringComparison.Ordinal)
            && call.Body?.Length > Kobo.Sync.SyncApi.Apis.KoboProtocol.KoboRoutes.MaxBodyBytes)
        {
            // A Kobo call's body past its limit (1 MiB): Kestrel refuses it (413) and closes the
            // connection while the client is still sending, as for an over-long request line.
            return null;
        }
        catch (HttpRequestException) when (!cancellationToken.IsCancellationRequested)
        {
            // The pooled keep-alive connection it went out on may be one the server closed after an
            // earlier request it refused without reading the whole body (above): such a request fails
            // before it reaches the service, and HTTP clients send it again on a new connection
            // (RFC 9112, 9.3.1). So does this check, once; a second failure is the service's.
            using var fresh = new HttpClient { BaseAddress = rest.BaseAddress, Timeout = rest.Timeout };
            sent = await SendAsync(fresh, call, cancellationToken);
        }

        using var response = sent;
        return await JudgeAsync(response, call, ledger, cancellationToken);
    }

    private static async Task<HttpResponseMessage> SendAsync(HttpClient rest, RestCall call, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(call.Method, new Uri(rest.BaseAddress!, call.Target));
        if (call.Auth.Header is { } authorization)
        {
            request.Headers.TryAddWithoutValidation("Authorization", authorization);
        }

        foreach (var (name, value) in call.Headers)
        {
            request.Headers.TryAddWithoutValidation(name, value);
        }

        if (call.Body is { } body)
        {
            request.Content = new ByteArrayContent(body);
            request.Content.Headers.ContentType = null;
            if (call.ContentType is { } contentType)
            {
                request.Content.Headers.TryAddWithoutValidation("Content-Type", contentType);
            }
        }

        return await rest.SendAsync(request, cancellationToken);
    }

    private static async Task<string?> JudgeAsync(HttpResponseMessage response, RestCall call, FuzzLedger ledger, CancellationToken cancellationToken)
    {
        var bytes = await response.Content.ReadAsByteArrayAsync(cancellationToken);
        var status = (int)response.StatusCode;
        var text = Encoding.UTF8.GetString(bytes, 0, Math.Min(bytes.Length, 2_000));
        var what = $"REST {call.Operation}";
        if (status >= 500)
        {
            return $"{what}: {status} | {text}";
        }

        if (call.Auth.MustBeRefused && status < 400)
        {
            return $"{what}: a token that must be refused got {status} | {text}";
        }

        // Kestrel's HTTP/1.1 parser refuses what it cannot parse or what passes its limits (a request
        // line over 8 KiB, headers over 32 KiB, a NUL in the path) before the service sees it: an empty
        // answer on a closed connection. Nothing of the service ran, so there is no problem to write.
        if (status is 400 or 414 or 431 && bytes.Length == 0 && response.Headers.ConnectionClose == true)
        {
            return null;
        }

        // The KOReader front refuses as the reference server does (KoreaderErrors); anything the shared
        // middleware refuses before it (routing, limits, admission) is a problem as everywhere.
        if (status >= 400 && call.Target.StartsWith(KoreaderCalls.Prefix + "/", StringComparison.Ordinal)
            && KoreaderCalls.IsReferenceError(response.Content.Headers.ContentType, bytes))
        {
            return null;
        }

        if (status >= 400)
        {
            return Problem(what, status, response.Content.Headers.ContentType, bytes, call.Method == HttpMethod.Head);
        }

        if (status is >= 200 and < 300)
        {
            return Record(call, bytes, ledger);
        }

        // A cover of the caller's book is a redirect to the content origin's (not followed here).
        if (status == 307 && call.Operation == "KoboCover")
        {
            return response.Headers.Location is { IsAbsoluteUri: true } ? null : $"{what}: 307 without an absolute Location";
        }

        return $"{what}: unexpected {status} | {text}";
    }

    private static string? Problem(string what, int status, MediaTypeHeaderValue? contentType, byte[] body, bool head)
    {
        if (contentType?.MediaType != "application/problem+json")
        {
            return $"{what}: {status} without problem+json | content type {contentType?.ToString() ?? "(none)"}, {body.Length} bytes";
        }

        if (head)
        {
            return null;
        }

        try
        {
            using var problem = JsonDocument.Parse(body);
            return problem.RootElement.TryGetProperty("detail", out var detail) && detail.ValueKind == JsonValueKind.String && detail.GetString()!.Length > 0
                ? null
                : $"{what}: {status} problem without a detail | {Encoding.UTF8.GetString(body)}";
        }
        catch (JsonException)
        {
            return $"{what}: {status} problem+json that is not JSON | {Encoding.UTF8.GetString(body)}";
        }
    }

    private static string? Record(RestCall call, byte[] body, FuzzLedger ledger)
    {
        switch (call.Operation)
        {
            case "PushChanges":
                using (var answer = JsonDocument.Parse(body))
                {
                    foreach (var result in answer.RootElement.GetProperty("results").EnumerateArray())
                    {
                        if (result.GetProperty("status").GetString() is "applied" or "conflict")
                        {
                            ledger.Wrote(result.GetProperty("id").GetString()!);
                        }
                    }
                }

                break;
            case "PutReadingState":
                using (var answer = JsonDocument.Parse(body))
                {
                    ledger.Wrote(FuzzLedger.ReadingState(answer.RootElement.GetProperty("readingState").GetProperty("bookNo").GetString()!));
                }

                break;
            case "PullChanges":
                ledger.Touched(call.Auth.Devices);
                break;
            case "RevokeDevice":
                ledger.Touched([call.RevokedDevice!]);
                break;
            case "KoboPutReadingState":
                // The book is the UUID in the path: /kobo/{secret}/v1/library/{uuid}/state.
                if (Kobo.Sync.Domain.Ids.BookUuid.TryParse(call.Target.Split('/')[^2], out var book))
                {
                    ledger.Wrote(FuzzLedger.ReadingState(book.ToString()));
                }

                break;
            case "KoboLibrarySync":
                // A linked e-reader's sync counts as its linking device's.
                ledger.Touched(call.Auth.Devices);
                break;
            case "KoreaderPutProgress":
                KoreaderCalls.Record(call, ledger);
                break;
            case "KoboPatchAnnotations":
                KoboAnnotationCalls.Record(call, body, ledger);
                break;
        }

        return null;
    }
}
