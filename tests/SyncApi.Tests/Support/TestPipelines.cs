using Kobo.Sync.Storage.Resilience;
using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// The service's storage pipelines for stores built by hand in tests: default settings, except a
/// budget longer than any test, so that the store's own behaviour (cancellation, batching) shows.
/// </summary>
public static class TestPipelines
{
    public static StoragePipelines Default() => new(
        Options.Create(new ResilienceOptions { RequestBudgetMs = 60_000 }),
        new LoggingResilienceEvents(NullLogger<LoggingResilienceEvents>.Instance),
        TimeProvider.System);
}
