using Kobo.Sync.Domain.Highlights;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>A page of a watch, or a heartbeat (no changes, the last token).</summary>
public sealed record LivePage(SyncChangePage Page, bool Heartbeat);
