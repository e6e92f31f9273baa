namespace Kobo.Sync.SyncApi.Infrastructure.Paging;

/// <summary>Section <c>Paging</c>: the key that signs page cursors.</summary>
public sealed class PagingOptions
{
    public const string SectionName = "Paging";

    /// <summary>
    /// At least 32 bytes (UTF-8); every instance behind one load balancer needs the same value. When
    /// empty, each process draws a random key: cursors then do not survive a restart.
    /// </summary>
    public string? CursorKey { get; set; }
}
