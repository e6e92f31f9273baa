namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// Cluster test classes that start a cluster of their own only to read it (no failover timing) run
/// alone: their cluster's start and stop would otherwise load the cores while another class measures
/// a failover's write gap.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class ClusterAloneCollection
{
    public const string Name = "Cluster (alone, read only)";
}
