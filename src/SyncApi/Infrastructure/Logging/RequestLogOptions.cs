using System.ComponentModel.DataAnnotations;

namespace Kobo.Sync.SyncApi.Infrastructure.Logging;

/// <summary>
/// Section <c>RequestLog</c>: how many request lines refused requests may write. A refusal (any 4xx, and
/// 503) writes at most one line; past <see cref="RefusedLinesPerSecond"/> in a second, the rest write none
/// and are counted, and one summary line every <see cref="RefusedSummarySeconds"/> says how many of each
/// status went unwritten. So a flood of refused requests costs the log a bounded number of bytes a second.
/// </summary>
public sealed class RequestLogOptions
{
    public const string SectionName = "RequestLog";

    [Range(0, 100_000, ErrorMessage = "RequestLog:RefusedLinesPerSecond must be from {1} to {2}.")]
    public int RefusedLinesPerSecond { get; set; } = 20;

    [Range(1, 3600, ErrorMessage = "RequestLog:RefusedSummarySeconds must be from {1} to {2}.")]
    public int RefusedSummarySeconds { get; set; } = 10;
}
