using System.Security.Cryptography;
using System.Text.Json;
using System.Text.Json.Nodes;
using Kobo.Sync.SyncApi.Infrastructure.KoboProtocol;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// The first calls of a device's sync: <c>GET v1/initialization</c> (where everything lives) and
/// <c>POST v1/auth/device</c> (a store sign-in the device insists on; the link's secret is what
/// authenticates it here, so the tokens answered are placeholders it merely carries back).
/// </summary>
internal static class KoboDeviceApi
{
    /// <summary>The longest <c>UserKey</c> echoed back; a longer one is not echoed.</summary>
    public const int MaxUserKeyLength = 256;

    public static RouteGroupBuilder MapKoboDevice(this RouteGroupBuilder kobo)
    {
        kobo.MapGet("/v1/initialization", Initialization).WithName("KoboInitialization");
        kobo.MapPost("/v1/auth/device", AuthDevice).WithName("KoboAuthDevice");
        return kobo;
    }

    private static IResult Initialization(string secret, HttpContext context, IOptions<KoboOptions> options)
    {
        // As calibre-web: the API token header holds base64 "{}".
        context.Response.Headers["x-kobo-apitoken"] = "e30=";
        var root = KoboUrls.EReaderRoot(options.Value, context, secret);
        return KoboJson.Of(new JsonObject { ["Resources"] = KoboResources.For(root) });
    }

    private static async Task<IResult> AuthDevice(HttpContext context, CancellationToken cancellationToken)
    {
        string? userKey = null;
        if (context.Request.ContentLength is not 0)
        {
            using var body = await KoboJson.ReadBodyAsync(context.Request, cancellationToken);
            if (body.RootElement.ValueKind == JsonValueKind.Object
                && body.RootElement.TryGetProperty("UserKey", out var key) && key.ValueKind == JsonValueKind.String)
            {
                userKey = KoboJson.StringOf(key);
            }
        }

        return KoboJson.Of(new JsonObject
        {
            ["AccessToken"] = Placeholder(),
            ["RefreshToken"] = Placeholder(),
            ["TokenType"] = "Bearer",
            ["TrackingId"] = Guid.NewGuid().ToString(),
            ["UserKey"] = userKey is { Length: <= MaxUserKeyLength } ? userKey : string.Empty,
        });
    }

    private static string Placeholder() => Convert.ToBase64String(RandomNumberGenerator.GetBytes(24));
}
