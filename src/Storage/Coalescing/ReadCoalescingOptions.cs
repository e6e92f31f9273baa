using System.ComponentModel.DataAnnotations;

namespace Kobo.Sync.Storage.Coalescing;

/// <summary>How the hot device reads share round trips to PostgreSQL (<c>Storage:Coalescing</c>).</summary>
public sealed class ReadCoalescingOptions
{
    public const string SectionName = "Storage:Coalescing";

    /// <summary>
    /// Batches on the wire at once; each holds one pooled connection while in flight. New reads leave
    /// at once below this, and queue for the next batch at it. Default: the processor count (at least
    /// 2). Fewer batches in flight make each one larger, and PostgreSQL spends less per read in a
    /// larger batch; on 2 cores, 2 served about a fifth more user reads than 4 (docs/performance-history.md).
    /// </summary>
    [Range(1, int.MaxValue, ErrorMessage = "Storage:Coalescing:MaxBatchesInFlight must be at least {1}.")]
    public int MaxBatchesInFlight { get; set; } = Math.Max(2, Environment.ProcessorCount);

    /// <summary>Most statements in one batch (1 turns coalescing off: one round trip per read).</summary>
    [Range(1, 1000, ErrorMessage = "Storage:Coalescing:MaxBatchSize must be between {1} and {2}.")]
    public int MaxBatchSize { get; set; } = 64;
}
