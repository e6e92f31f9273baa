namespace Kobo.Sync.SyncApi.Tests.Cluster;

/// <summary>
/// The test classes that start a 3-node cluster of their own run one after another, never two clusters
/// at once: a failover's write gap is measured with no other cluster starting, copying or restoring
/// beside it. The collection as a whole runs beside the rest of the suite, not after it.
/// </summary>
[CollectionDefinition(Name)]
public sealed class ClusterCollection
{
    public const string Name = "Cluster (one at a time)";
}
