using System.Diagnostics;
using Kobo.Sync.SyncApi.Infrastructure.Errors;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.SyncApi.Infrastructure.Logging;
using Microsoft.AspNetCore.Diagnostics.HealthChecks;
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
