using System.ComponentModel.DataAnnotations;

namespace Kobo.Sync.SyncApi.Infrastructure.Paging;

/// <summary>Section <c>Paging</c>: the key that signs page cursors, and the bytes a page may carry.</summary>
public sealed class PagingOptions
{
    public const string SectionName = "Paging";

    /// <summary>
    /// The bytes of items one page may carry (<see cref="Domain.Requests.PageBudget"/>): highlight pages,
    /// the delta pull (REST, gRPC, watch) and the Kobo library sync end before their item count when the
    /// next item would pass it. A page's first item always comes, however large. Below 16 KiB, ordinary
    /// pages of short highlights would end long before their item count; above 64 MiB, the budget no
    /// longer bounds what a device must take in one answer.
    /// </summary>
    [Range(16 * 1024, 64 * 1024 * 1024, ErrorMessage = "Paging:MaxPageBytes must be from {1} to {2}.")]
    public int MaxPageBytes { get; set; } = Domain.Requests.PageBudget.DefaultMaxBytes;

    /// <summary>
    /// At least 32 bytes (UTF-8); every instance behind one load balancer needs the same value. When
    /// empty, each process draws a random key: cursors then do not survive a restart.
    /// </summary>
    public string? CursorKey { get; set; }
}
