using System.Threading.RateLimiting;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Infrastructure.Wire;

namespace Kobo.Sync.SyncApi.Infrastructure.Admission;

/// <summary>
/// The one limiter every request passes (ASP.NET Core rate limiting's global limiter), two limits
/// chained: a concurrency limit with a bounded queue for the instance as a whole, then a token
/// bucket per device (<see cref="DeviceRateLimiter"/>; a Kobo link's bucket is its own, <c>Admission:PerKoboLink*</c>). Health probes pass
/// both untouched: an overloaded instance must still say so. A request refused by the first is answered 503, by the second 429
/// (<see cref="AdmissionRejection"/>). A live pull (<see cref="LiveRequests.IsLive"/>) passes the first without a slot: it may wait a
/// minute for a change holding nothing, and takes a slot of the same limit around each database call instead.
/// </summary>
internal static class AdmissionLimiter
{
    private const string Instance = "instance";
    private const string Exempt = "exempt";

    public static PartitionedRateLimiter<HttpContext> Create(AdmissionOptions options, InstanceAdmission instanceAdmission)
    {
        // The partitions' factories are made once: a lambda written inline in the partitioner would
        // be a new delegate (and closure) on every request.
        Func<string, RateLimiter> instance = _ => instanceAdmission.Limiter;
        var exempt = RateLimitPartition.GetNoLimiter(Exempt);
        var instancePartition = RateLimitPartition.Get(Instance, instance);

        return PartitionedRateLimiter.CreateChained(
            PartitionedRateLimiter.Create<HttpContext, string>(
                context => IsHealthProbe(context) || LiveRequests.IsLive(context) ? exempt : instancePartition),
            new DeviceRateLimiter(
                new BucketShape(options.PerDeviceBurst, options.PerDeviceRequestsPerSecond),
                new BucketShape(options.PerKoboLinkBurst, options.PerKoboLinkRequestsPerSecond),
                KoboLinkAuthentication.AdmissionPrefix,
                TimeProvider.System));
    }

    private static bool IsHealthProbe(HttpContext context) =>
        context.Request.Path.StartsWithSegments("/healthz", StringComparison.Ordinal)
        || context.Request.Path.StartsWithSegments("/grpc.health.v1.Health", StringComparison.Ordinal);
}
