using System.Text.Json.Nodes;

namespace Kobo.Sync.SyncApi.Apis.KoboProtocol;

/// <summary>
/// The store calls a device makes on every sync, answered as calibre-web answers them without its
/// store proxy: an empty object, except the loyalty benefits (<c>{"Benefits": {}}</c>) and the A/B
/// tests (<c>{"Result": "Success", ...}</c>). Any other path under the device's root gets the same
/// empty object: calibre-web answers its unimplemented store and library calls so, and a device
/// takes it as "nothing here" where an error would stop its sync. Only for the methods a device uses
/// (<see cref="DeviceMethods"/>): any other (TRACE, OPTIONS, PROPFIND, ...) is answered 405 with
/// <c>Allow</c>, as problem+json, before the link is even looked up.
/// </summary>
internal static class KoboStoreApi
{
    public const int MaxTestKeyLength = 256;

    /// <summary>The methods a Kobo device calls its store and library with.</summary>
    public static readonly string[] DeviceMethods =
    [
        HttpMethods.Get, HttpMethods.Post, HttpMethods.Put, HttpMethods.Delete, HttpMethods.Patch,
    ];

    public static RouteGroupBuilder MapKoboStore(this RouteGroupBuilder kobo)
    {
        kobo.MapGet("/v1/user/loyalty/benefits", () => KoboJson.Of(new JsonObject { ["Benefits"] = new JsonObject() }))
            .WithName("KoboLoyaltyBenefits");
        kobo.MapMethods("/v1/analytics/gettests", [HttpMethods.Get, HttpMethods.Post], GetTests).WithName("KoboGetTests");
        // Last of all the routes, as a fallback is, but for the device's methods only.
        kobo.MapMethods("{**path}", DeviceMethods, KoboJson.Empty).WithOrder(int.MaxValue).WithName("KoboUnknownCall");
        return kobo;
    }

    private static IResult GetTests(HttpContext context)
    {
        string testKey = context.Request.Headers["X-Kobo-userkey"].ToString();
        return KoboJson.Of(new JsonObject
        {
            ["Result"] = "Success",
            ["TestKey"] = testKey.Length <= MaxTestKeyLength ? testKey : string.Empty,
            ["Tests"] = new JsonObject(),
        });
    }
}
