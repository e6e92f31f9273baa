using Kobo.Sync.SyncApi.Infrastructure.Auth;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Auth;

[Trait("Category", "Fast")]
public sealed class ExpiringCacheTests
{
    private static readonly DateTimeOffset Now = new(2026, 11, 29, 12, 0, 0, TimeSpan.Zero);

    [Fact]
    public void AnEntryOutlivesHalfTheCapacitysAddsAndIsGoneAfterTheCapacitys()
    {
        var cache = new ExpiringCache<int>(capacity: 100);
        cache.Set("first", 1, Now.AddHours(1));
        for (var i = 0; i < 99; i++)
        {
            cache.Set($"k{i}", i, Now.AddHours(1));
        }

        Assert.True(cache.TryGet("first", Now, out var value) && value == 1, "dropped within its first half-capacity of adds");
        for (var i = 99; i < 200; i++)
        {
            cache.Set($"k{i}", i, Now.AddHours(1));
        }

        Assert.False(cache.Contains("first", Now), "kept past two generations");
        Assert.True(cache.Contains("k199", Now));
        Assert.True(Enumerable.Range(0, 200).Count(i => cache.Contains($"k{i}", Now)) <= 100, "holds more than its capacity");
    }

    [Fact]
    public void AnExpiredEntryIsNotAnswered()
    {
        var cache = new ExpiringCache<int>(capacity: 10);
        cache.Set("k", 1, Now.AddSeconds(1));

        Assert.True(cache.Contains("k", Now));
        Assert.False(cache.Contains("k", Now.AddSeconds(1)));
        Assert.False(cache.Contains("k", Now), "an expired entry found is dropped");
    }

    [Fact]
    public void ARemovalReachesBothGenerationsAndTheNewestValueWins()
    {
        var cache = new ExpiringCache<int>(capacity: 4);
        cache.Set("old", 1, Now.AddHours(1));
        cache.Set("a", 2, Now.AddHours(1));
        cache.Set("old", 3, Now.AddHours(1)); // "old" is now in both generations

        Assert.True(cache.TryGet("old", Now, out var value) && value == 3);
        cache.Remove("old");
        Assert.False(cache.Contains("old", Now));
    }
}
