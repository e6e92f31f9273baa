using System.Globalization;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.SyncApi.Infrastructure.Wire;

/// <summary>
/// Which requests are live pulls, decided from the request line alone so that admission control and
/// request telemetry (which run before and around the endpoint) agree with the endpoint: a REST pull
/// with a valid <c>wait</c> above 0, and every gRPC <c>WatchChanges</c> call. Paths compare without
/// case, as routing matches them.
/// </summary>
public static class LiveRequests
{
    public const string WaitField = "wait";
    public const int MaxWaitSeconds = 60;
    public const string WatchChangesPath = "/kobo.sync.v1.SyncService/WatchChanges";

    /// <summary>The <c>endpoint</c> tag of a REST pull that may wait (<c>PullChanges</c> with <c>wait</c> above 0).</summary>
    public const string RestWaitEndpoint = "PullChangesWait";

    /// <summary>A request that may wait for changes, holding no admission slot while it does.</summary>
    public static bool IsLive(HttpContext context)
    {
        var request = context.Request;
        if (request.Path.Equals(WatchChangesPath, StringComparison.OrdinalIgnoreCase))
        {
            return true;
        }

        return HttpMethods.IsGet(request.Method) && IsChangesPath(request.Path)
            && TryWaitSeconds(request.Query[WaitField].ToString(), out var wait) && wait > 0;
    }

    /// <summary>The <c>wait</c> query value in seconds, 0 when absent; a 400 on field <c>wait</c> when malformed.</summary>
    public static int WaitSeconds(string? text) =>
        TryWaitSeconds(text, out var seconds)
            ? seconds
            : throw new InvalidRequestException(WaitField, $"wait must be a whole number of seconds from 0 to {MaxWaitSeconds}.");

    private static bool TryWaitSeconds(string? text, out int seconds)
    {
        if (string.IsNullOrEmpty(text))
        {
            seconds = 0;
            return true;
        }

        return int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out seconds) && seconds <= MaxWaitSeconds;
    }

    /// <summary><c>/v1/users/{userNo}/changes</c>, whatever the user segment holds (the endpoint validates it).</summary>
    private static bool IsChangesPath(PathString path)
    {
        var value = path.Value.AsSpan();
        const string prefix = "/v1/users/";
        const string suffix = "/changes";
        return value.Length > prefix.Length + suffix.Length
            && value.StartsWith(prefix, StringComparison.OrdinalIgnoreCase)
            && value.EndsWith(suffix, StringComparison.OrdinalIgnoreCase)
            && !value[prefix.Length..^suffix.Length].Contains('/');
    }
}
