using Kobo.Sync.Storage.Standbys;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Storage.Standbys;

/// <summary>
/// The users' last writes that standby reads must see, on a clock the test moves: a write is held for at
/// least a window, and what is covered (how far back every write is held) never claims a write it forgot.
/// </summary>
[Trait("Category", "Fast")]
public sealed class RecentWritesTests
{
    private static readonly TimeSpan Window = TimeSpan.FromSeconds(10);
    private readonly ManualClock _clock = new();

    [Fact]
    public void AUsersHighestWriteIsHeldForAtLeastAWindowAndThenForgotten()
    {
        var writes = new RecentWrites(Window, _clock);
        writes.Record(7, 12);
        writes.Record(7, 9); // an older write told late (another instance's notification) does not lower it
        Assert.Equal(12, writes.Lookup(7).LastWrite);
        Assert.Equal(0, writes.Lookup(8).LastWrite);

        _clock.Advance(9.9);
        Assert.Equal(12, writes.Lookup(7).LastWrite);
        _clock.Advance(0.2); // a new generation: the write is in the previous one
        Assert.Equal(12, writes.Lookup(7).LastWrite);
        writes.Record(7, 13);
        Assert.Equal(13, writes.Lookup(7).LastWrite);

        _clock.Advance(10); // 13 was written in the generation now previous
        Assert.Equal(13, writes.Lookup(7).LastWrite);
        _clock.Advance(10);
        Assert.Equal(0, writes.Lookup(7).LastWrite);
    }

    [Fact]
    public void WhatIsCoveredGrowsFromTheStartAndStaysBetweenOneAndTwoWindows()
    {
        var writes = new RecentWrites(Window, _clock);
        _clock.Advance(3);
        Assert.Equal(TimeSpan.FromSeconds(3), writes.Lookup(0).Covered); // since the start, nothing forgotten

        _clock.Advance(8); // past the first window: nothing has been forgotten yet
        Assert.Equal(TimeSpan.FromSeconds(11), writes.Lookup(0).Covered);
        writes.Record(1, 1);
        _clock.Advance(10); // the start's generation is forgotten: covered from the one begun at 11 s
        Assert.Equal(TimeSpan.FromSeconds(10), writes.Lookup(0).Covered);
        _clock.Advance(9);
        Assert.Equal(TimeSpan.FromSeconds(19), writes.Lookup(0).Covered);
    }

    [Fact]
    public void AFullGenerationStartsTheNextEarlyAndCoversOnlyFromTheOneItForgot()
    {
        var writes = new RecentWrites(Window, _clock, maxUsersPerGeneration: 2);
        writes.Record(1, 5);
        _clock.Advance(1);
        writes.Record(2, 5);
        _clock.Advance(1);
        writes.Record(3, 5); // the current generation is full: it becomes the previous one
        Assert.Equal(TimeSpan.FromSeconds(2), writes.Lookup(0).Covered);
        Assert.Equal(5, writes.Lookup(1).LastWrite);

        _clock.Advance(1);
        writes.Record(4, 5);
        Assert.Equal(5, writes.Lookup(1).LastWrite); // not full yet: user 1 is still held
        writes.Record(5, 5); // full again: users 1 and 2 are forgotten, and what is covered says so
        Assert.Equal(0, writes.Lookup(1).LastWrite);
        Assert.Equal(5, writes.Lookup(3).LastWrite);
        Assert.Equal(TimeSpan.FromSeconds(1), writes.Lookup(0).Covered);

        writes.Record(3, 6); // a user already held is updated without starting another generation
        Assert.Equal(6, writes.Lookup(3).LastWrite);
        Assert.Equal(TimeSpan.FromSeconds(1), writes.Lookup(0).Covered);
    }
}
