using Kobo.Sync.Domain.KoboProtocol;
using Kobo.Sync.Storage.Stores;

namespace Kobo.Sync.SyncApi.Extensions;

/// <summary>The Kobo reading-services annotation endpoints: their application service and store.</summary>
public static class KoboAnnotationsExtensions
{
    public static IServiceCollection AddKoboAnnotations(this IServiceCollection services)
    {
        services.AddSingleton<PostgresKoboAnnotationStore>();
        services.AddSingleton<IKoboAnnotationStore, ResilientKoboAnnotationStore>();
        services.AddSingleton<KoboAnnotations>();
        return services;
    }
}
