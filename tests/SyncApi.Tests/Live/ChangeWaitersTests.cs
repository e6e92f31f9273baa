using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Infrastructure.Live;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>The registry of waiting devices on its own: budgets, who a notification wakes, and how often.</summary>
[Trait("Category", "Fast")]
public sealed class ChangeWaitersTests
{
    private static readonly UserNo Ada = new(1);
    private static readonly UserNo Ben = new(2);

    private static int _devices;

    private static ChangeWaiters Registry(int maxWaiters = 100, int perUser = 10, bool livePull = true, int perDevice = 4) =>
        new(Options.Create(new SyncOptions { MaxWaiters = maxWaiters, MaxWaitersPerUser = perUser, MaxWaitersPerDevice = perDevice, LivePull = livePull }));

    /// <summary>A device id no other wait in the test has.</summary>
    private static string NewDevice() => "device-" + Interlocked.Increment(ref _devices);

    private static ChangeWaiter Add(ChangeWaiters registry, UserNo user)
    {
        Assert.Equal(WaitAdmission.Admitted, registry.TryAdd(user, NewDevice(), "rest", out var waiter));
        return waiter!;
    }

    [Fact]
    public void ANotificationWakesOnlyTheUsersDevicesThatAreBehindIt()
    {
        var registry = Registry();
        using var behind = Add(registry, Ada);
        using var current = Add(registry, Ada);
        using var otherUser = Add(registry, Ben);
        var wakeBehind = behind.ArmAsync(caughtUpThrough: 4);
        var wakeCurrent = current.ArmAsync(caughtUpThrough: 5);
        var wakeOther = otherUser.ArmAsync(caughtUpThrough: 0);

        registry.Notify(Ada.Value, 5, WakeSignal.Now());

        Assert.True(wakeBehind.IsCompletedSuccessfully);
        Assert.False(wakeCurrent.IsCompleted); // it already has change 5
        Assert.False(wakeOther.IsCompleted);
    }

    [Fact]
    public async Task ABurstOfNotificationsWakesADeviceOnceAndTheNextArmSeesWhatCameMeanwhile()
    {
        var registry = Registry();
        using var waiter = Add(registry, Ada);
        var wake = waiter.ArmAsync(caughtUpThrough: 1);
        var first = WakeSignal.Now();

        registry.Notify(Ada.Value, 2, first);
        registry.Notify(Ada.Value, 3, WakeSignal.Now());
        registry.Notify(Ada.Value, 4, WakeSignal.Now());

        Assert.Equal(first, await wake); // one wake, from the first notification
        // Its pull saw up to 3; change 4 came while it pulled: the next wait ends at once.
        Assert.True(waiter.ArmAsync(caughtUpThrough: 3).IsCompletedSuccessfully);
        // Its pull saw everything: it sleeps until a newer change.
        Assert.False(waiter.ArmAsync(caughtUpThrough: 4).IsCompleted);
    }

    [Fact]
    public async Task ANotifiedNumberWakesADeviceOnceEvenIfItsPullDoesNotSeeTheChange()
    {
        var registry = Registry();
        using var waiter = Add(registry, Ada);
        var wake = waiter.ArmAsync(caughtUpThrough: 1);
        registry.Notify(Ada.Value, 5, WakeSignal.Now());
        await wake;

        // Its pull still caught up through 1 only: no second pull for the same notification...
        var again = waiter.ArmAsync(caughtUpThrough: 1);
        Assert.False(again.IsCompleted);
        registry.Notify(Ada.Value, 5, WakeSignal.Now());
        Assert.False(again.IsCompleted);
        // ...but a newer one wakes it.
        registry.Notify(Ada.Value, 6, WakeSignal.Now());
        Assert.True(again.IsCompletedSuccessfully);
    }

    [Fact]
    public void AChangeCommittedBetweenRegistrationAndTheFirstPullsAnswerEndsTheWaitAtOnce()
    {
        var registry = Registry();
        using var waiter = Add(registry, Ada);

        registry.Notify(Ada.Value, 7, WakeSignal.Now()); // while its first pull runs

        Assert.True(waiter.ArmAsync(caughtUpThrough: 6).IsCompletedSuccessfully); // the pull missed it
    }

    [Fact]
    public void TheInstanceAndTheUserBudgetsRefuseAndFreedPlacesAreTakenAgain()
    {
        var registry = Registry(maxWaiters: 3, perUser: 2);
        var ada1 = Add(registry, Ada);
        using var ada2 = Add(registry, Ada);

        Assert.Equal(WaitAdmission.UserFull, registry.TryAdd(Ada, NewDevice(), "rest", out _));
        using var ben1 = Add(registry, Ben);
        Assert.Equal(WaitAdmission.InstanceFull, registry.TryAdd(Ben, NewDevice(), "grpc", out _));
        Assert.Equal(3, registry.Count);

        ada1.Dispose();
        ada1.Dispose(); // twice is harmless
        Assert.Equal(2, registry.Count);
        using var ada3 = Add(registry, Ada);
        Assert.Equal(3, registry.Count);
    }

    [Fact]
    public void ADeviceHoldsOnlyItsShareOfItsUsersPlacesAndTheUsersOtherDevicesStillWait()
    {
        var registry = Registry(perUser: 10, perDevice: 3);
        var held = Enumerable.Range(0, 3).Select(_ => Take(registry, Ada, "reader", "grpc")).ToList();

        Assert.Equal(WaitAdmission.DeviceFull, registry.TryAdd(Ada, "reader", "rest", out var refused));
        Assert.Null(refused);
        using var phone = Take(registry, Ada, "phone", "rest");
        using var bensReader = Take(registry, Ben, "reader", "grpc");
        held[0].Dispose();
        using var again = Take(registry, Ada, "reader", "rest");
        Assert.Equal(5, registry.Count);

        static ChangeWaiter Take(ChangeWaiters registry, UserNo user, string device, string protocol)
        {
            Assert.Equal(WaitAdmission.Admitted, registry.TryAdd(user, device, protocol, out var waiter));
            return waiter!;
        }
    }

    [Theory]
    [InlineData(20, 4, 4)]
    [InlineData(4, 4, 3)]
    [InlineData(2, 20, 1)]
    [InlineData(1, 4, 1)]
    public void ADevicesShareIsFewerThanItsUsersPlacesWhenTheUserHasMoreThanOne(int perUser, int perDevice, int share) =>
        Assert.Equal(share, new SyncOptions { MaxWaitersPerUser = perUser, MaxWaitersPerDevice = perDevice }.WaitersPerDevice);

    [Fact]
    public void WithLivePullOffNoDeviceMayWait()
    {
        var registry = Registry(livePull: false);

        Assert.Equal(WaitAdmission.InstanceFull, registry.TryAdd(Ada, NewDevice(), "rest", out var waiter));
        Assert.Null(waiter);
        Assert.Equal(0, registry.Count);
    }

    [Fact]
    public void TheLastDeviceOfAUserLeavingRemovesTheUser()
    {
        var registry = Registry();
        var waiter = Add(registry, Ada);
        Assert.Equal([Ada.Value], registry.Users);

        waiter.Dispose();

        Assert.Empty(registry.Users);
        Assert.Equal(0, registry.Count);
    }

    [Fact]
    public async Task StoppingEndsEveryWaitAndRefusesNewOnes()
    {
        var registry = Registry();
        using var waiter = Add(registry, Ada);
        var wake = waiter.ArmAsync(caughtUpThrough: 1);

        registry.Stop();

        Assert.True((await wake).Stopping);
        Assert.True((await waiter.ArmAsync(caughtUpThrough: 1)).Stopping);
        Assert.Equal(WaitAdmission.Stopping, registry.TryAdd(Ben, NewDevice(), "rest", out _));
    }

    [Fact]
    public async Task DevicesComingAndGoingWhileNotificationsArriveLeaveTheRegistryEmpty()
    {
        var registry = Registry(maxWaiters: 1_000, perUser: 1_000);
        var tasks = Enumerable.Range(0, 8).Select(t => Task.Run(() =>
        {
            for (var i = 0; i < 2_000; i++)
            {
                var user = new UserNo(1 + ((t + i) % 3));
                if (registry.TryAdd(user, NewDevice(), "rest", out var waiter) == WaitAdmission.Admitted)
                {
                    _ = waiter!.ArmAsync(i);
                    registry.Notify(user.Value, i + 1, WakeSignal.Now());
                    waiter.Dispose();
                }
            }
        })).ToArray();

        await Task.WhenAll(tasks);

        Assert.Equal(0, registry.Count);
        Assert.Empty(registry.Users);
    }
}
