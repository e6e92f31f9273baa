namespace Kobo.Sync.SyncApi.Tests.Telemetry.Support;

/// <summary>
/// Tests that count measurements run alone: a meter is subscribed by name, so a service started by
/// a test running in parallel would add its requests to the counts.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class TelemetryCollection
{
    public const string Name = "Telemetry (counts measurements)";
}
