using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Microsoft.AspNetCore.Mvc;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// The root of the Kobo device protocol: <c>/kobo/{secret}</c>, the <c>api_endpoint</c> a linked
/// e-reader calls. Every endpoint mapped on the group is authenticated by the link's secret
/// (<see cref="KoboLinkAuthentication"/>); an unknown or revoked secret gets 401 before any body is read.
/// </summary>
public static class KoboRoutes
{
    public const string Prefix = "/kobo/{" + KoboLinkAuthentication.SecretRouteValue + "}";

    /// <summary>The largest request body a device may send (an endpoint may set its own).</summary>
    public const long MaxBodyBytes = 1024 * 1024;

    public static RouteGroupBuilder MapKoboGroup(IEndpointRouteBuilder app) =>
        app.MapGroup(Prefix)
            .RequireAuthorization(KoboLinkAuthentication.Policy)
            .WithMetadata(new RequestSizeLimitAttribute(MaxBodyBytes))
            .WithTags("Kobo device protocol")
            .ExcludeFromDescription();
}
