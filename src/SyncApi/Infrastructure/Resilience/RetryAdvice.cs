using System.Globalization;

namespace Kobo.Sync.SyncApi.Infrastructure.Resilience;

/// <summary>
/// How a refused request tells the device when to come back. HTTP's <c>Retry-After</c> counts whole
/// seconds (RFC 9110), so it is rounded up and the exact figure travels as <c>retryAfterMs</c> in the
/// problem+json body; gRPC carries milliseconds in <c>grpc-retry-pushback-ms</c> (gRPC retry design, A6).
/// </summary>
public static class RetryAdvice
{
    public const string ProblemExtension = "retryAfterMs";
    public const string GrpcPushbackTrailer = "grpc-retry-pushback-ms";

    /// <summary>
    /// When to come back after a refusal that many devices may get at once (the instance over capacity,
    /// its waiting budget full): at least <paramref name="least"/> and up to twice it, at random, so that
    /// devices refused together do not all come back together.
    /// </summary>
    public static TimeSpan Spread(TimeSpan least) => least + (least * Random.Shared.NextDouble());

    public static string HeaderSeconds(TimeSpan retryAfter) =>
        Math.Max(1, (long)Math.Ceiling(retryAfter.TotalSeconds)).ToString(CultureInfo.InvariantCulture);

    public static long Milliseconds(TimeSpan retryAfter) => Math.Max(1, (long)Math.Ceiling(retryAfter.TotalMilliseconds));

    public static KeyValuePair<string, string> GrpcTrailer(TimeSpan retryAfter) =>
        new(GrpcPushbackTrailer, Milliseconds(retryAfter).ToString(CultureInfo.InvariantCulture));
}
