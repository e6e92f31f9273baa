using System.Diagnostics;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// The <c>Kobo.Sync</c> activity source: a span around a unit of work that makes more than one
/// database call (a sync push or pull), so the calls group under it within the request's trace.
/// A single-statement read needs none: Npgsql's own span sits directly under the request.
/// </summary>
public static class SyncActivitySource
{
    public const string Name = "Kobo.Sync";

    public static readonly ActivitySource Source = new(Name);

    /// <summary>Starts an internal span, or returns null when nothing listens (no cost then).</summary>
    public static Activity? StartOperation(string name) => Source.StartActivity(name, ActivityKind.Internal);
}
