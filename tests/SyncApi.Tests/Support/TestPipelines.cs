using Kobo.Sync.SyncApi.Infrastructure.Resilience;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>The service's storage pipelines with their default settings, for stores built by hand in tests.</summary>
public static class TestPipelines
{
    public static StoragePipelines Default() => new(
        Options.Create(new ResilienceOptions()),
        new LoggingResilienceEvents(NullLogger<LoggingResilienceEvents>.Instance),
        TimeProvider.System);
}
