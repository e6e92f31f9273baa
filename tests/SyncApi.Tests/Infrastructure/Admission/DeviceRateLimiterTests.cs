using System.Security.Claims;
using System.Threading.RateLimiting;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Infrastructure.Admission;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Http;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Admission;

/// <summary>The per-device token buckets, on a clock the test moves: refill at the rate, refusals and their wait, generations.</summary>
[Trait("Category", "Fast")]
public sealed class DeviceRateLimiterTests
{
    private const string LinkPrefix = "kobo-link:";
    private readonly ManualClock _clock = new();
    private readonly DeviceRateLimiter _limiter;

    public DeviceRateLimiterTests() =>
        _limiter = new DeviceRateLimiter(new BucketShape(Burst: 3, PerSecond: 1), new BucketShape(Burst: 5, PerSecond: 2), LinkPrefix, _clock);

    [Fact]
    public void ADeviceHasItsBurstThenItsRateWhileAnotherIsServed()
    {
        Assert.All(Enumerable.Range(0, 3), _ => Assert.True(Take("a")));
        _clock.Advance(0.25);

        using var refused = _limiter.AttemptAcquire(Device("a"));
        Assert.False(refused.IsAcquired);
        Assert.True(refused.TryGetMetadata(MetadataName.RetryAfter, out var wait));
        Assert.Equal(TimeSpan.FromSeconds(1), wait); // the package's wording: whole seconds, at least one
        Assert.True(Take("b"));

        _clock.Advance(0.74);
        Assert.False(Take("a")); // 0.99 of a token
        _clock.Advance(0.02);
        Assert.True(Take("a"));
        Assert.False(Take("a"));
    }

    [Fact]
    public void AnIdleBucketRefillsAtItsRateUpToItsBurst()
    {
        Assert.All(Enumerable.Range(0, 3), _ => Assert.True(Take("a")));
        _clock.Advance(2.5);
        Assert.True(Take("a"));
        Assert.True(Take("a"));
        Assert.False(Take("a"));
        _clock.Advance(0.5);
        Assert.True(Take("a"));

        _clock.Advance(60);
        Assert.Equal(3, Enumerable.Range(0, 5).Count(_ => Take("a")));
    }

    [Fact]
    public void AShortfallOfSeveralSecondsIsToldAsSuch()
    {
        Assert.All(Enumerable.Range(0, 3), _ => Assert.True(Take("a")));

        using var refused = _limiter.AttemptAcquire(Device("a"), permitCount: 3);

        Assert.True(refused.TryGetMetadata(MetadataName.RetryAfter, out var wait));
        Assert.Equal(TimeSpan.FromSeconds(3), wait);
    }

    [Fact]
    public void AKoboLinkHasABucketOfItsOwnShape()
    {
        Assert.Equal(5, Enumerable.Range(0, 8).Count(_ => Take(LinkPrefix + "x")));
        _clock.Advance(1);
        Assert.Equal(2, Enumerable.Range(0, 8).Count(_ => Take(LinkPrefix + "x")));
    }

    [Fact]
    public void ABucketDrainedJustBeforeANewGenerationStaysDrainedInIt()
    {
        _clock.Advance(DeviceRateLimiter.GenerationSeconds - 0.05);
        Assert.All(Enumerable.Range(0, 3), _ => Assert.True(Take("a")));

        _clock.Advance(0.1); // a new generation starts with this request
        Assert.False(Take("a"));
        Assert.True(Take("b"));
    }

    [Fact]
    public void ARequestOfNoDeviceIsNotLimited()
    {
        Assert.All(Enumerable.Range(0, 50), _ =>
        {
            using var lease = _limiter.AttemptAcquire(new DefaultHttpContext());
            Assert.True(lease.IsAcquired);
        });
    }

    private bool Take(string key)
    {
        using var lease = _limiter.AttemptAcquire(Device(key));
        return lease.IsAcquired;
    }

    private static DefaultHttpContext Device(string key)
    {
        var identity = new DeviceIdentity([], new DeviceCaller(new UserNo(1), "d"), DateTimeOffset.UnixEpoch, DateTimeOffset.MaxValue, key);
        return new DefaultHttpContext { User = new ClaimsPrincipal(identity) };
    }
}
