using System.Diagnostics;
using System.Reflection;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry;
using Kobo.Sync.SyncApi.Infrastructure.Telemetry.Prometheus;
using OpenTelemetry;
using OpenTelemetry.Metrics;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;
using Serilog.Core;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>
/// The one telemetry setup: OpenTelemetry metrics (Kobo.Sync's own meter, ASP.NET Core hosting and
/// Kestrel, the runtime, Npgsql), traces (ASP.NET Core's request span, Npgsql's command spans,
/// HttpClient, Kobo.Sync's own source) and, with OTLP, logs. Built once with the SDK's builders
/// (<see cref="OpenTelemetrySdk.Create"/>) and disposed with the service. Metrics are always on and
/// scraped at <c>/metrics</c>; OTLP export (all three signals) is on only when the standard
/// <c>OTEL_EXPORTER_OTLP_ENDPOINT</c> is set. Spans are recorded only when something takes them
/// (OTLP, or a processor registered in DI as tests do), so an idle tracer costs no request anything.
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

    /// <summary>Meters subscribed by name: these libraries publish them themselves.</summary>
    public static readonly IReadOnlyList<string> Meters =
    [
        SyncMetrics.MeterName,
        "Microsoft.AspNetCore.Hosting",
        "Microsoft.AspNetCore.Server.Kestrel",
        "Microsoft.AspNetCore.Diagnostics",
        "Microsoft.AspNetCore.RateLimiting",
        "System.Runtime",
        "Npgsql",
    ];

    /// <summary>Activity sources subscribed by name.</summary>
    public static readonly IReadOnlyList<string> ActivitySources =
    [
        "Microsoft.AspNetCore",
        "Npgsql",
        "System.Net.Http",
        SyncActivitySource.Name,
    ];

    public static WebApplicationBuilder AddTelemetry(this WebApplicationBuilder builder)
    {
        var configuration = builder.Configuration;
        var services = builder.Services;
        // The instruments always exist (handlers and stores record into them); with nothing listening a recording is a no-op.
        services.AddSingleton<SyncMetrics>();
        services.AddSingleton<EndpointLabels>();
        if (!IsEnabled(configuration))
        {
            return builder;
        }

        // Registered as an instance so the container does not dispose it: the SDK that reads it does.
        services.AddSingleton(new PrometheusScrapeReader());
        services.AddSingleton(sp => CreateSdk(sp, configuration));

        if (IsOtlpEnabled(configuration))
        {
            // Serilog's events, filtered and redacted, go to the SDK's logger provider and leave by OTLP.
            services.AddSingleton<ILogEventSink, OpenTelemetryLogSink>();
        }

        return builder;
    }

    /// <summary>Starts the SDK (so the first request is measured) and records every request.</summary>
    public static WebApplication UseTelemetry(this WebApplication app)
    {
        if (!IsEnabled(app.Configuration))
        {
            return app;
        }

        app.Services.GetRequiredService<OpenTelemetrySdk>();
        app.UseMiddleware<RequestTelemetryMiddleware>();
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

    private static OpenTelemetrySdk CreateSdk(IServiceProvider services, IConfiguration configuration)
    {
        var otlp = IsOtlpEnabled(configuration);
        var spanProcessors = services.GetServices<BaseProcessor<Activity>>().ToList();
        var reader = services.GetRequiredService<PrometheusScrapeReader>();
        var version = typeof(TelemetryExtensions).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;

        return OpenTelemetrySdk.Create(otel =>
        {
            otel.ConfigureResource(resource => resource.AddService(ServiceName, serviceVersion: version));
            otel.WithMetrics(metrics =>
            {
                foreach (var meter in Meters)
                {
                    metrics.AddMeter(meter);
                }

                metrics.AddReader(reader);
                PrometheusViews.Apply(metrics);
            });

            if (otlp || spanProcessors.Count > 0)
            {
                otel.WithTracing(tracing =>
                {
                    foreach (var source in ActivitySources)
                    {
                        tracing.AddSource(source);
                    }

                    foreach (var processor in spanProcessors)
                    {
                        tracing.AddProcessor(processor);
                    }
                });
            }

            if (otlp)
            {
                // Endpoint, protocol and headers come from the standard OTEL_EXPORTER_OTLP_* variables.
                otel.UseOtlpExporter();
            }
        });
    }
}
