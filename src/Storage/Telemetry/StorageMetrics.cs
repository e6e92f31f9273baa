using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Kobo.Sync.Storage.Telemetry;

/// <summary>
/// The instruments storage records itself, on the service's <c>Kobo.Sync</c> meter (the web host's
/// <c>SyncMetrics</c> holds the rest): database operations by kind and node, and device reads tried on a standby.
/// </summary>
public sealed class StorageMetrics : IDisposable
{
    public const string MeterName = "Kobo.Sync";

    /// <summary>Database operation buckets in seconds: the store answers in milliseconds when healthy.</summary>
    public static readonly IReadOnlyList<double> DatabaseBucketsSeconds =
    [
        0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075,
        0.1, 0.15, 0.2, 0.3, 0.5, 1, 2.5, 5, 10,
    ];

    private const string OperationTag = "operation";
    private const string NodeTag = "node";
    private const string OutcomeTag = "outcome";

    private readonly Meter _meter;
    private readonly Histogram<double> _databaseOperationDuration;
    private readonly Counter<long> _standbyReads;

    public StorageMetrics(IMeterFactory meterFactory)
    {
        _meter = meterFactory.Create(MeterName);
        _databaseOperationDuration = _meter.CreateHistogram(
            "kobo.sync.db.operation.duration", "s",
            "Time of one database operation (open to last row read), by operation kind and node (host:port).",
            advice: new InstrumentAdvice<double> { HistogramBucketBoundaries = DatabaseBucketsSeconds });
        _standbyReads = _meter.CreateCounter<long>(
            "kobo.sync.standby.reads", "{read}",
            "Device reads tried on a standby, by outcome: served there, or read again on the primary because the standby was behind the " +
            "user's last write, lagged, or did not have the user.");
    }

    /// <summary>One database operation; <paramref name="node"/> from <see cref="DatabaseNodes.Of"/> on its open connection.</summary>
    public void RecordDatabaseOperation(string operation, string node, TimeSpan elapsed)
    {
        var tags = new TagList { { OperationTag, operation }, { NodeTag, node } };
        _databaseOperationDuration.Record(elapsed.TotalSeconds, in tags);
    }

    /// <summary>A device read tried on a standby ended as <paramref name="outcome"/> (served, behind, lagging, unknown_user).</summary>
    public void RecordStandbyRead(string outcome)
    {
        var tags = new TagList { { OutcomeTag, outcome } };
        _standbyReads.Add(1, in tags);
    }

    public void Dispose() => _meter.Dispose();
}

/// <summary>The operation kinds of <see cref="StorageMetrics.RecordDatabaseOperation"/>.</summary>
public static class DatabaseOperations
{
    public const string FindUser = "find_user";
    public const string ListHighlights = "list_highlights";
}
