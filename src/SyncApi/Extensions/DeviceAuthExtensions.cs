using Kobo.Sync.Domain.Devices;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Authorization;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>Device authentication (bearer JWT) and the default policy: an authenticated device.</summary>
public static class DeviceAuthExtensions
{
    public static WebApplicationBuilder AddDeviceAuth(this WebApplicationBuilder builder)
    {
        builder.Services.AddValidatedOptions<DeviceTokenOptions, DeviceTokenOptionsValidator>(DeviceTokenOptions.SectionName);
        builder.Services.AddSingleton<DeviceTokenKeys>();
        builder.Services.AddSingleton<ValidatedTokenCache>();
        builder.Services.TryAddSingleton(DeviceRevocationList.FromSettings);
        builder.Services.AddSingleton<IRevokedDevices>(services => services.GetRequiredService<DeviceRevocationList>());

        builder.Services.AddAuthentication(DeviceAuthentication.Scheme)
            .AddScheme<AuthenticationSchemeOptions, DeviceTokenHandler>(DeviceAuthentication.Scheme, null);
        builder.Services.AddAuthorizationBuilder()
            // No scheme named here: the authentication middleware has already run the default scheme
            // (the device token), so naming it would make every request authenticate twice.
            .SetDefaultPolicy(new AuthorizationPolicyBuilder()
                .RequireAuthenticatedUser()
                .Build());
        return builder;
    }

    public static WebApplication UseDeviceAuth(this WebApplication app)
    {
        app.UseAuthentication();
        app.UseAuthorization();
        return app;
    }
}
