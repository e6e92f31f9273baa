using Kobo.Sync.Domain.KoreaderProtocol;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage.Stores;
using Kobo.Sync.SyncApi.Apis.KoreaderProtocol;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Hosting;
using Kobo.Sync.SyncApi.Infrastructure.KoreaderProtocol;
using Microsoft.AspNetCore.Authentication;
using Microsoft.Extensions.Options;
using Npgsql;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>
/// KOReader's progress sync front: logins, their authentication, and the protocol's endpoints under <c>KOReader:PathPrefix</c>.
/// </summary>
public static class KoreaderExtensions
{
    public static WebApplicationBuilder AddKoreader(this WebApplicationBuilder builder)
    {
        builder.Services.AddValidatedOptions<KoreaderOptions, KoreaderOptionsValidator>(KoreaderOptions.SectionName);
        builder.Services.AddSingleton(
            sp => new PostgresKoreaderStore(sp.GetRequiredService<NpgsqlDataSource>(), StorageExtensions.CommitSignalsOf(sp)));
        builder.Services.AddSingleton<IKoreaderStore, ResilientKoreaderStore>();
        builder.Services.AddSingleton<KoreaderLogins>();
        builder.Services.AddSingleton<IRevokedKoreaderLogins>(services => services.GetRequiredService<KoreaderLogins>());
        builder.Services.AddSingleton<KoreaderCredentialRegistry>();
        builder.Services.AddSingleton(services => new KoreaderSync(
            services.GetRequiredService<IKoreaderStore>(),
            services.GetRequiredService<SyncSettings>(),
            services.GetRequiredService<TimeProvider>(),
            services.GetRequiredService<IOptions<KoreaderOptions>>().Value.MaxDocumentsPerUser));
        builder.Services.AddAuthentication()
            .AddScheme<AuthenticationSchemeOptions, KoreaderAuthHandler>(KoreaderAuthentication.Scheme, null);
        builder.Services.AddAuthorizationBuilder()
            .AddPolicy(KoreaderAuthentication.Policy, policy => policy
                .AddAuthenticationSchemes(KoreaderAuthentication.Scheme)
                .RequireAuthenticatedUser());
        return builder;
    }

    public static WebApplication MapKoreader(this WebApplication app)
    {
        app.MapKoreaderLoginsApi();
        app.MapKoreaderProtocol(app.Services.GetRequiredService<IOptions<KoreaderOptions>>().Value.PathPrefix);
        return app;
    }
}
