using Kobo.Sync.Domain.Library;
using Kobo.Sync.SyncApi.Apis.Kobo;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Kobo;
using Kobo.Sync.SyncApi.Infrastructure.Storage;
using Microsoft.AspNetCore.Authentication;
using Microsoft.AspNetCore.Authorization;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>The Kobo device protocol front: links, their authentication, and the <c>/kobo/{secret}</c> endpoints.</summary>
public static class KoboExtensions
{
    public static WebApplicationBuilder AddKobo(this WebApplicationBuilder builder)
    {
        builder.Services.AddSingleton<IValidateOptions<KoboOptions>, KoboOptionsValidator>();
        builder.Services.AddOptions<KoboOptions>()
            .Bind(builder.Configuration.GetSection(KoboOptions.SectionName))
            .ValidateOnStart();
        builder.Services.AddSingleton<KoboLinkStore>();
        builder.Services.TryAddSingleton<KoboLinkCache>();
        builder.Services.AddSingleton<KoboLinkLookups>();
        builder.Services.AddSingleton<KoboLinkRegistry>();
        builder.Services.AddSingleton<ILibraryStore, PostgresLibraryStore>();
        builder.Services.AddSingleton<LibrarySync>();
        builder.Services.AddKoboAnnotations();
        builder.Services.AddAuthentication()
            .AddScheme<AuthenticationSchemeOptions, KoboLinkHandler>(KoboLinkAuthentication.Scheme, null);
        builder.Services.AddAuthorizationBuilder()
            .AddPolicy(KoboLinkAuthentication.Policy, policy => policy
                .AddAuthenticationSchemes(KoboLinkAuthentication.Scheme)
                .RequireAuthenticatedUser());
        return builder;
    }

    public static WebApplication MapKobo(this WebApplication app)
    {
        app.MapKoboLinksApi();
        KoboRoutes.MapKoboGroup(app)
            .MapKoboDevice()
            .MapKoboLibrary()
            .MapKoboReadingState()
            .MapKoboTags()
            .MapKoboStore()
            .MapKoboAnnotations();
        return app;
    }
}
