using Kobo.Sync.SyncApi.Infrastructure.Admission;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Microsoft.AspNetCore.RateLimiting;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>
/// Admission control: a concurrency limit with a bounded queue, and per-device rate limits (ASP.NET
/// Core rate limiting), taken only once the request's body has arrived and given back before its answer
/// waits on the device's network; what a device may hold meanwhile is bounded by its own share.
/// </summary>
public static class AdmissionExtensions
{
    public static WebApplicationBuilder AddAdmissionControl(this WebApplicationBuilder builder)
    {
        var services = builder.Services;
        services.AddValidatedOptions<AdmissionOptions, AdmissionOptionsValidator>(AdmissionOptions.SectionName);
        services.AddSingleton<InstanceAdmission>();
        services.AddSingleton<DeviceLoads>();
        services.AddSingleton<AnswerLoads>();
        services.AddRateLimiter(_ => { });
        services.AddOptions<RateLimiterOptions>().Configure<IOptions<AdmissionOptions>, InstanceAdmission>((limiter, admission, instance) =>
        {
            limiter.GlobalLimiter = AdmissionLimiter.Create(admission.Value, instance);
            limiter.OnRejected = AdmissionRejection.WriteAsync;
        });
        return builder;
    }

    /// <summary>
    /// First after authentication: a device's request holds one of its device's places until its answer is
    /// written (<see cref="DeviceShareMiddleware"/>).
    /// </summary>
    public static WebApplication UseDeviceShares(this WebApplication app)
    {
        app.UseMiddleware<DeviceShareMiddleware>();
        return app;
    }

    /// <summary>
    /// Outside the admission limiter: an answer is produced into memory inside the slot and sent after it
    /// (<see cref="AnswerBufferingMiddleware"/>).
    /// </summary>
    public static WebApplication UseAnswerBuffering(this WebApplication app)
    {
        app.UseMiddleware<AnswerBufferingMiddleware>();
        return app;
    }

    /// <summary>
    /// After authentication and before the request's database budget starts: an authenticated
    /// request's body arrives (<see cref="BodyArrivalMiddleware"/>) before it may queue for a slot.
    /// </summary>
    public static WebApplication UseBodyArrival(this WebApplication app)
    {
        app.UseMiddleware<BodyArrivalMiddleware>();
        return app;
    }

    /// <summary>After authentication, so that the per-device limit knows the device.</summary>
    public static WebApplication UseAdmissionControl(this WebApplication app)
    {
        app.UseRateLimiter();
        return app;
    }
}
