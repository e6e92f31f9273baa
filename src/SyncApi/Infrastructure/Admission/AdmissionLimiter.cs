using System.Threading.RateLimiting;
using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Infrastructure.Auth;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// The one limiter every request passes (ASP.NET Core rate limiting's global limiter), two limits
/// chained: a concurrency limit with a bounded queue for the instance as a whole, then a token
/// bucket per device. Health probes pass both untouched: an overloaded instance must still say so.
/// A request refused by the first is answered 503, by the second 429 (<see cref="AdmissionRejection"/>).
/// </summary>
internal static class AdmissionLimiter
{
    private const string Instance = "instance";
    private const string Exempt = "exempt";

    public static PartitionedRateLimiter<HttpContext> Create(AdmissionOptions options) =>
        PartitionedRateLimiter.CreateChained(
            PartitionedRateLimiter.Create<HttpContext, string>(context => IsHealthProbe(context)
                ? RateLimitPartition.GetNoLimiter(Exempt)
                : RateLimitPartition.GetConcurrencyLimiter(Instance, _ => new ConcurrencyLimiterOptions
                {
                    PermitLimit = options.ConcurrencyLimit,
                    QueueLimit = options.QueueLimit,
                    QueueProcessingOrder = QueueProcessingOrder.OldestFirst,
                })),
            PartitionedRateLimiter.Create<HttpContext, string>(context => DeviceOf(context) is { } device
                ? RateLimitPartition.GetTokenBucketLimiter(device, _ => new TokenBucketRateLimiterOptions
                {
                    TokenLimit = options.PerDeviceBurst,
                    TokensPerPeriod = options.PerDeviceRequestsPerSecond,
                    ReplenishmentPeriod = TimeSpan.FromSeconds(1),
                    QueueLimit = 0,
                    AutoReplenishment = true,
                })
                : RateLimitPartition.GetNoLimiter(Exempt)));

    private static bool IsHealthProbe(HttpContext context) =>
        context.Request.Path.StartsWithSegments("/healthz", StringComparison.Ordinal)
        || context.Request.Path.StartsWithSegments("/grpc.health.v1.Health", StringComparison.Ordinal);

    /// <summary>The authenticated device (token <c>did</c> of user <c>sub</c>); null before authentication or for anonymous calls.</summary>
    private static string? DeviceOf(HttpContext context)
    {
        var user = context.User;
        if (user.Identity?.IsAuthenticated != true)
        {
            return null;
        }

        var device = user.FindFirst(DeviceAuthentication.DeviceClaim)?.Value;
        var sub = user.FindFirst(DeviceAuthentication.UserClaim)?.Value;
        return device is null ? null : $"{sub}/{device}";
    }
}
