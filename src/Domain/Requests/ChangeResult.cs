namespace Kobo.Sync.Domain.Requests;

/// <summary>The outcome of one pushed change, in request order; <see cref="Reason"/> only for conflicts and rejections.</summary>
public sealed record ChangeResult(string? Id, string Status, string? Version, string? Reason = null);

/// <summary>The values of <see cref="ChangeResult.Status"/>.</summary>
public static class ChangeStatus
{
    /// <summary>The stored highlight changed; <c>version</c> is its new version.</summary>
    public const string Applied = "applied";

    /// <summary>The change was already stored (a replay): nothing changed.</summary>
    public const string Unchanged = "unchanged";

    /// <summary>A newer edit is stored and wins; <c>version</c> is the stored version (pull to get it).</summary>
    public const string Conflict = "conflict";

    /// <summary>The change is malformed; nothing was stored for it.</summary>
    public const string Rejected = "rejected";
}
