namespace Kobo.Sync.Storage;

/// <summary>
/// What a PostgreSQL server accepts: <c>max_connections</c>, of which <c>superuser_reserved_connections</c> only for superusers.
/// </summary>
public readonly record struct ServerConnectionLimits(int MaxConnections, int SuperuserReserved)
{
    /// <summary>PostgreSQL's own defaults, assumed when the server cannot be asked at start.</summary>
    public static readonly ServerConnectionLimits PostgresDefaults = new(100, 3);
}

/// <summary>
/// The connections one instance may hold on its server (<see cref="Share"/>) and how they are split:
/// the write pool, the read pool (only with a read source of its own) and live pull's two (its change
/// listener and its signal sender).
/// </summary>
/// <param name="Budget">The connections all instances may hold together.</param>
public sealed record PoolPlan(int Budget, int Share, int Write, int Read, int Live)
{
    /// <summary>What one instance holds at most when its pools are full.</summary>
    public int Held => Write + Read + Live;
}

/// <summary>
/// Sizes the service's pools from the server's connection limit and the number of instances sharing it.
/// Every pool keeps the connections it opens (the five-minute stalls, <see cref="StorageDataSource"/>),
/// so what each instance may hold must be bounded by design: the server's <c>max_connections</c>, less
/// <c>superuser_reserved_connections</c> and <c>Storage:ReservedConnections</c> (replication, the
/// operators' and the monitoring's sessions), divided among <c>Storage:Instances</c>. An instance takes
/// two for live pull (its change listener and its signal sender, when live pull is on) and gives the rest to its write pool, or, with a
/// read source of its own (<c>Storage:ReadConnectionString</c>), half of it to each: a host list that
/// prefers standbys may still land every read on the primary, so reads count against the primary too.
/// </summary>
public static class ConnectionBudget
{
    private const string Instances = StorageOptions.SectionName + ":" + nameof(StorageOptions.Instances);
    private const string Reserved = StorageOptions.SectionName + ":" + nameof(StorageOptions.ReservedConnections);

    /// <exception cref="InvalidOperationException">The share is too small for the instance's pools; the message names the
    /// settings.</exception>
    public static PoolPlan Plan(ServerConnectionLimits server, int instances, int reserved, bool separateReads, bool listens)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(instances, 1);
        var budget = server.MaxConnections - server.SuperuserReserved - reserved;
        var share = Math.Max(0, budget) / instances;
        var live = listens ? 2 : 0;
        var pools = share - live;
        var needed = live + (separateReads ? 2 : 1);
        if (share < needed)
        {
            throw new InvalidOperationException(
                $"The database server takes {server.MaxConnections} connections (max_connections), {server.SuperuserReserved} of them "
                + $"for superusers only (superuser_reserved_connections); less {Reserved} ({reserved}) that leaves {Math.Max(0, budget)} "
                + $"for {Instances} ({instances}) instances, {share} each, and an instance needs at least {needed}. "
                + $"Lower {Instances} or {Reserved}, or raise the server's max_connections.");
        }

        var read = separateReads ? pools / 2 : 0;
        return new PoolPlan(budget, share, pools - read, read, live);
    }

    /// <summary>What all instances hold together when each holds <paramref name="held"/> connections.</summary>
    public static int Total(int instances, int held) => instances * held;
}
