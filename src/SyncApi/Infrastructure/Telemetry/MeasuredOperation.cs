using System.Diagnostics;
using Npgsql;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// Times one database operation from its start (before the connection was taken from the pool) to
/// its disposal, and records it with the node of the open connection. A struct used with
/// <c>using</c>: nothing is allocated; with no metrics it does nothing.
/// </summary>
public readonly struct MeasuredOperation(SyncMetrics? metrics, string operation, NpgsqlConnection connection, long startedTimestamp) : IDisposable
{
    public void Dispose() =>
        metrics?.RecordDatabaseOperation(operation, DatabaseNodes.Of(connection), Stopwatch.GetElapsedTime(startedTimestamp));
}
