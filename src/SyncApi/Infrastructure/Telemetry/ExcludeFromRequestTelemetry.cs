namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>Endpoint metadata: no request metrics and no request log line (the scrape endpoint).</summary>
public sealed class ExcludeFromRequestTelemetry
{
    public static readonly ExcludeFromRequestTelemetry Instance = new();
}
