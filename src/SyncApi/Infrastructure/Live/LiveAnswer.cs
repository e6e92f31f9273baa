using Kobo.Sync.Domain.Highlights;

namespace Kobo.Sync.SyncApi.Infrastructure.Live;

/// <summary>
/// A live pull's answer: the page; when the wait could not be taken, when to come back
/// (<paramref name="RetryAfter"/>); when a change notification woke the device, its signal (for the
/// wake latency, recorded once the answer is written).
/// </summary>
public sealed record LiveAnswer(SyncChangePage Page, TimeSpan? RetryAfter, WakeSignal? Woken);
