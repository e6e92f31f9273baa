using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Domain.Library;
using Kobo.Sync.SyncApi.Apis.KoboProtocol;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Kobo.Sync.Storage.Stores;
using Microsoft.AspNetCore.Authentication;
using Microsoft.Extensions.DependencyInjection.Extensions;

#if DEVELOPMENT_SERVER
using Kobo.Sync.DevServer.Demo;
using Kobo.Sync.Storage;
using Microsoft.Extensions.Options;
#endif

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>The Kobo device protocol front: links, their authentication, and the <c>/kobo/{secret}</c> endpoints.</summary>
public static class KoboExtensions
{
    public static WebApplicationBuilder AddKobo(this WebApplicationBuilder builder)
    {
        builder.Services.AddValidatedOptions<KoboOptions, KoboOptionsValidator>(KoboOptions.SectionName)
#if DEVELOPMENT_SERVER
            // The demo content origin, when not set: on for the demo run only (the embedded server, seeded).
            .PostConfigure<IOptions<StorageOptions>, IOptions<DemoOptions>>((kobo, storage, demo) =>
                kobo.DemoContent ??= storage.Value.UsesEmbeddedServer && demo.Value.Seed);
#else
            // A published service carries no demo books.
            .Validate(
                kobo => kobo.DemoContent != true, "Kobo:DemoContent is on, and this build carries no demo content (a published service).");
#endif
        builder.Services.AddSingleton<PostgresKoboLinkStore>();
        builder.Services.AddSingleton<IKoboLinkStore, ResilientKoboLinkStore>();
        builder.Services.TryAddSingleton<KoboLinkCache>();
        builder.Services.AddSingleton<KoboLinkLookups>();
        builder.Services.AddSingleton<IRevokedKoboLinks>(services => services.GetRequiredService<KoboLinkCache>());
        builder.Services.AddSingleton<KoboLinkRegistry>();
        builder.Services.AddSingleton<PostgresLibraryStore>();
        builder.Services.AddSingleton<ILibraryStore, ResilientLibraryStore>();
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
            .MapKoboContent()
            .MapKoboTags()
            .MapKoboStore()
            .MapKoboAnnotations();
#if DEVELOPMENT_SERVER
        if (app.Services.GetRequiredService<IOptions<KoboOptions>>().Value.DemoContent == true)
        {
            app.MapKoboDemoContent();
        }
#endif

        return app;
    }
}
