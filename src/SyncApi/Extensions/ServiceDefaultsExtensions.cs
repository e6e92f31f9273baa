using System.Diagnostics;
using Kobo.Sync.SyncApi.Infrastructure.Errors;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.SyncApi.Infrastructure.Logging;
using Microsoft.AspNetCore.Diagnostics.HealthChecks;
using Microsoft.AspNetCore.HttpOverrides;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>What every Kobo.Sync process has: logging, listeners, problem+json errors and health endpoints.</summary>
public static class ServiceDefaultsExtensions
{
    public const string LivenessPath = "/healthz/live";
    public const string ReadinessPath = "/healthz/ready";

    /// <summary>Health checks with this tag decide readiness (storage reachable, migrated, seeded).</summary>
    public const string ReadyTag = "ready";

    public static WebApplicationBuilder AddServiceDefaults(this WebApplicationBuilder builder)
    {
        builder.AddSerilogLogging();

        builder.Services.AddValidatedOptions<EndpointsOptions, EndpointsOptionsValidator>(EndpointsOptions.SectionName);
        builder.Services.AddSingleton<IConfigureOptions<KestrelServerOptions>, KestrelEndpointsSetup>();

        // The client's address behind the deployment's own balancers: X-Forwarded-For is believed only
        // from Proxies:TrustedNetworks, and only its last entry (the one that balancer appended).
        builder.Services.AddValidatedOptions<ProxiesOptions, ProxiesOptionsValidator>(ProxiesOptions.SectionName);
        builder.Services.AddOptions<ForwardedHeadersOptions>().Configure<IOptions<ProxiesOptions>>((forwarded, proxies) =>
        {
            forwarded.ForwardedHeaders = ForwardedHeaders.XForwardedFor;
            forwarded.ForwardLimit = 1;
            forwarded.KnownProxies.Clear();
            forwarded.KnownIPNetworks.Clear();
            foreach (var network in proxies.Value.Networks())
            {
                forwarded.KnownIPNetworks.Add(network);
            }
        });

        builder.Services.AddProblemDetails(options => options.CustomizeProblemDetails = context =>
        {
            // The same id the request's log line carries, so a device's error report finds the log.
            context.ProblemDetails.Extensions["traceId"] =
                Activity.Current?.TraceId.ToString() ?? context.HttpContext.TraceIdentifier;
            context.ProblemDetails.Detail ??= ProblemJsonWriter.DefaultDetail(context.HttpContext);
        });
        // After the framework's writer: it answers whatever Accept asked for.
        builder.Services.AddSingleton<IProblemDetailsWriter, ProblemJsonWriter>();

        builder.Services.AddHealthChecks();
        return builder;
    }

    /// <summary>
    /// First in the pipeline: the client address every later step sees (logs, spans, per-address
    /// allowances) is the one a trusted balancer forwarded, or the connection's own.
    /// </summary>
    public static WebApplication UseClientAddresses(this WebApplication app)
    {
        if (app.Services.GetRequiredService<IOptions<ProxiesOptions>>().Value.TrustedNetworks.Length > 0)
        {
            app.UseForwardedHeaders();
        }

        return app;
    }

    public static WebApplication UseServiceDefaults(this WebApplication app)
    {
        app.LogSettingsFiles();

        // First, so that its line has the status the exception handler and status pages answered.
        app.UseRequestLogging();
        app.UseExceptionHandler();
        app.UseStatusCodePages();
        return app;
    }

    public static WebApplication MapServiceDefaults(this WebApplication app)
    {
        // Liveness runs no checks: the process answers, so it is alive. Readiness asks storage.
        app.MapHealthChecks(LivenessPath, new HealthCheckOptions { Predicate = _ => false });
        app.MapHealthChecks(ReadinessPath, new HealthCheckOptions { Predicate = check => check.Tags.Contains(ReadyTag) });
        return app;
    }
}
