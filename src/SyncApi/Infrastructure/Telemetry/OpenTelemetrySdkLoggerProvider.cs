using OpenTelemetry;

namespace Kobo.Sync.SyncApi.Infrastructure.Telemetry;

/// <summary>
/// Hands the service's <see cref="ILogger"/> events to the logger provider of the one
/// <see cref="OpenTelemetrySdk"/> (registered only when OTLP export is on), so logs are exported with
/// the same resource and by the same exporter as traces and metrics. The SDK owns the loggers.
/// </summary>
internal sealed class OpenTelemetrySdkLoggerProvider(OpenTelemetrySdk sdk) : ILoggerProvider
{
    private readonly ILoggerFactory _factory = sdk.GetLoggerFactory();

    public ILogger CreateLogger(string categoryName) => _factory.CreateLogger(categoryName);

    public void Dispose()
    {
        // The SDK's factory is disposed with the SDK.
    }
}
