namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Tests that assert latencies and memory under load run alone: other test classes running in
/// parallel on the same cores would measure the machine, not the service.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class MeasuredAloneCollection
{
    public const string Name = "Resilience (measured alone)";
}
