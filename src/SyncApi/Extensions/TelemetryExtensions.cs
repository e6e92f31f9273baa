using System.Diagnostics;
using System.Reflection;
using Kobo.Sync.Storage.Telemetry;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry.Prometheus;
using Npgsql;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;
using Serilog.Extensions.Logging;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>
/// The one telemetry setup, on OpenTelemetry's hosting package (<c>services.AddOpenTelemetry()</c>):
/// metrics from Kobo.Sync's own meter and the ASP.NET Core, HttpClient, runtime and Npgsql
/// instrumentations, scraped at <c>/metrics</c> through the Prometheus exporter; traces from ASP.NET
/// Core, HttpClient, Npgsql and Kobo.Sync's own source; and, with OTLP, logs. OTLP export (all three
/// signals) is on only when the standard <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> is set. Spans are recorded
/// only when something takes them: the tracer is built only with OTLP on or when a processor is
/// added with <see cref="AddSpanProcessor"/>, so an idle tracer costs no request anything.
/// </summary>
public static class TelemetryExtensions
{
    public const string OtlpEndpointKey = "OTEL_EXPORTER_OTLP_ENDPOINT";

    /// <summary>
    /// <c>false</c> switches telemetry off entirely (no SDK, no request recording, no <c>/metrics</c>):
    /// for measuring what it costs, or shedding its work in an emergency. Default <c>true</c>.
    /// </summary>
    public const string EnabledKey = "Telemetry:Enabled";
    public const string ServiceName = "kobo-sync";

    /// <summary>
    /// The service's name in its telemetry: what the standard variables say (<c>OTEL_SERVICE_NAME</c>, else
    /// <c>service.name</c> in <c>OTEL_RESOURCE_ATTRIBUTES</c>), read by the SDK's own detectors; <see cref="ServiceName"/>
    /// when they name none (the SDK's fallback is <c>unknown_service:...</c>).
    /// </summary>
    internal static string ResourceServiceName()
    {
        var detected = ResourceBuilder.CreateDefault().Build().Attributes
            .FirstOrDefault(a => a.Key == "service.name").Value as string;
        return detected is null || detected.StartsWith("unknown_service", StringComparison.Ordinal) ? ServiceName : detected;
    }

    public static WebApplicationBuilder AddTelemetry(this WebApplicationBuilder builder)
    {
        var configuration = builder.Configuration;
        var services = builder.Services;
        // The instruments always exist (handlers and stores record into them); with nothing listening a recording is a no-op.
        services.AddSingleton<SyncMetrics>();
        services.AddSingleton<StorageMetrics>();
        services.AddSingleton<EndpointLabels>();
        if (!IsEnabled(configuration))
        {
            return builder;
        }

        var version = typeof(TelemetryExtensions).Assembly
            .GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
        var otel = services.AddOpenTelemetry()
            .ConfigureResource(resource => resource.AddService(ResourceServiceName(), serviceVersion: version))
            .WithMetrics(metrics =>
            {
                metrics.AddMeter(SyncMetrics.MeterName)
                    .AddAspNetCoreInstrumentation()
                    .AddHttpClientInstrumentation()
                    .AddRuntimeInstrumentation()
                    .AddNpgsqlInstrumentation()
                    .AddPrometheusExporter(MetricsEndpoint.Configure);
                PrometheusViews.Apply(metrics);
            });

        // What a trace is made of. It applies only once a tracer is built (OTLP below, or AddSpanProcessor).
        services.ConfigureOpenTelemetryTracerProvider(tracing => tracing
            .AddSource(SyncActivitySource.Name)
            .AddAspNetCoreInstrumentation(RequestSpans.Configure)
            .AddHttpClientInstrumentation()
            .AddNpgsql());

        if (IsOtlpEnabled(configuration))
        {
            // Endpoint, protocol and headers come from the standard OTEL_EXPORTER_OTLP_* variables.
            var loggerProviders = services.Where(d => d.ServiceType == typeof(ILoggerProvider)).ToList();
            otel.WithTracing().WithLogging().UseOtlpExporter();

            // Serilog's events, filtered and redacted, are the only logs that leave by OTLP: OpenTelemetry's
            // logger provider is taken out of Microsoft.Extensions.Logging (whose events would skip the
            // redaction) and handed to Serilog's providers sink (WriteTo.Providers, in SerilogSetup).
            var openTelemetryProvider = services.Single(d => d.ServiceType == typeof(ILoggerProvider) && !loggerProviders.Contains(d));
            services.Remove(openTelemetryProvider);
            services.AddSingleton(sp => SerilogProviders((ILoggerProvider)openTelemetryProvider.ImplementationFactory!(sp)));
        }

        return builder;
    }

    private static LoggerProviderCollection SerilogProviders(ILoggerProvider provider)
    {
        var providers = new LoggerProviderCollection();
        providers.AddProvider(provider);
        return providers;
    }

    /// <summary>
    /// Takes every finished span with <paramref name="processor"/> (an exporter's processor): this is
    /// what turns the tracer on without OTLP.
    /// </summary>
    public static IServiceCollection AddSpanProcessor(this IServiceCollection services, BaseProcessor<Activity> processor)
    {
        services.AddOpenTelemetry().WithTracing(tracing => tracing.AddProcessor(processor));
        return services;
    }

    /// <summary>Records every request in the <c>Kobo.Sync</c> meter and names its server span.</summary>
    public static WebApplication UseTelemetry(this WebApplication app)
    {
        if (IsEnabled(app.Configuration))
        {
            app.UseMiddleware<RequestTelemetryMiddleware>();
        }

        return app;
    }

    public static WebApplication MapTelemetry(this WebApplication app)
    {
        if (IsEnabled(app.Configuration))
        {
            app.MapMetrics();
        }

        return app;
    }

    public static bool IsEnabled(IConfiguration configuration) => configuration.GetValue(EnabledKey, defaultValue: true);

    public static bool IsOtlpEnabled(IConfiguration configuration) =>
        !string.IsNullOrWhiteSpace(configuration[OtlpEndpointKey]);
}
