using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Infrastructure.Live;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>
/// Waits remembered so that an idle device's next wait needs no pull: when one may resume, and every
/// event that must make the device pull instead.
/// </summary>
[Trait("Category", "Fast")]
public sealed class QuietWaitsTests : IDisposable
{
    private static readonly DeviceCaller Reader = new(new UserNo(1), "reader");
    private static readonly DeviceCaller Other = new(new UserNo(2), "other");

    private readonly ShiftedClock _clock = new();
    private readonly ChangeWaiters _waiters;
    private readonly QuietWaits _quiet;

    public QuietWaitsTests()
    {
        var options = Options.Create(new SyncOptions { MaxWaiters = 3 });
        _waiters = new ChangeWaiters(options);
        _quiet = new QuietWaits(options, _clock);
        _quiet.ListenerUp();
    }

    public void Dispose() => _quiet.Dispose();

    /// <summary>
    /// A wait that ended with nothing after a pull caught up through change 7, as <see cref="LivePull"/>
    /// remembers it; its device heard of change <paramref name="heard"/> first, when given.
    /// </summary>
    private void EndQuietly(
        DeviceCaller caller, string token, long caughtUpThrough = 7, long? period = null, DateTimeOffset? recordedAt = null, long? heard = null)
    {
        Assert.Equal(WaitAdmission.Admitted, _waiters.TryAdd(caller.User, caller.DeviceId, "rest", out var waiter));
        using (waiter)
        {
            if (heard is { } seq)
            {
                _waiters.Notify(caller.User.Value, seq, WakeSignal.Now());
            }

            _quiet.Remember(caller, token, caughtUpThrough, period ?? _quiet.ListeningPeriod, recordedAt ?? _clock.GetUtcNow(), waiter!);
        }
    }

    [Fact]
    public void ADeviceBackWithTheTokenItsWaitEndedOnResumesOnceWithoutAPull()
    {
        EndQuietly(Reader, "t1");

        var resumed = _quiet.TryResume(Reader, "t1");

        Assert.NotNull(resumed);
        Assert.Equal(7, resumed.CaughtUpThrough);
        Assert.Equal("t1", resumed.Token);
        Assert.Null(_quiet.TryResume(Reader, "t1")); // taken: the next wait remembers again
        Assert.Equal(0, _quiet.Count);
    }

    [Fact]
    public void AnotherTokenOrAnotherDeviceDoesNotResume()
    {
        EndQuietly(Reader, "t1");
        EndQuietly(Other, "t2");

        Assert.Null(_quiet.TryResume(Reader with { DeviceId = "someone-else" }, "t1"));
        Assert.Null(_quiet.TryResume(Reader, "an-older-token"));
        Assert.NotNull(_quiet.TryResume(Other, "t2"));
    }

    [Fact]
    public void AChangeOfTheUserNotifiedAfterTheWaitMakesTheNextWaitPull()
    {
        EndQuietly(Reader, "t1");
        EndQuietly(Other, "t2");

        _quiet.Forget(Reader.User.Value);

        Assert.Null(_quiet.TryResume(Reader, "t1"));
        Assert.NotNull(_quiet.TryResume(Other, "t2"));
    }

    [Fact]
    public void AWaitWhoseDeviceHeardOfALaterChangeIsNotRemembered()
    {
        EndQuietly(Reader, "t1", heard: 8);

        Assert.Null(_quiet.TryResume(Reader, "t1"));
    }

    [Fact]
    public void AChangeTheWaitAlreadyHadDoesNotStopItBeingRemembered()
    {
        EndQuietly(Reader, "t1", heard: 7);

        Assert.NotNull(_quiet.TryResume(Reader, "t1"));
    }

    [Fact]
    public void NothingIsRememberedOrResumedAcrossAListenerThatStoppedListening()
    {
        var before = _quiet.ListeningPeriod;
        EndQuietly(Reader, "t1");
        _quiet.ListenerLost();
        Assert.Null(_quiet.ListeningPeriod);
        EndQuietly(Other, "t2", period: before); // its pull ran before the loss
        _quiet.ListenerUp();

        Assert.NotEqual(before, _quiet.ListeningPeriod);
        Assert.Null(_quiet.TryResume(Reader, "t1"));
        Assert.Null(_quiet.TryResume(Other, "t2"));
    }

    [Fact]
    public void ARememberedWaitLapsesAfterItsLifetimeAndAfterTheDevicesRecordIsDue()
    {
        EndQuietly(Reader, "t1");
        _clock.Advance(QuietWaits.Lifetime);
        Assert.Null(_quiet.TryResume(Reader, "t1"));

        EndQuietly(Reader, "t2", recordedAt: _clock.GetUtcNow() - QuietWaits.RecordEvery);

        Assert.Null(_quiet.TryResume(Reader, "t2"));
    }

    [Fact]
    public void AtMostMaxWaitersAreRememberedAndASweepDropsTheExpired()
    {
        for (var device = 0; device < 5; device++)
        {
            EndQuietly(Reader with { DeviceId = "d" + device }, "t" + device);
        }

        Assert.Equal(3, _quiet.Count);
        _clock.Advance(QuietWaits.Lifetime);
        _quiet.Sweep();
        Assert.Equal(0, _quiet.Count);
    }
}
