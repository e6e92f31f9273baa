using System.Diagnostics;
using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Scenarios.Live;

namespace Kobo.Sync.DeviceSimulator.Tests.Scenarios.Live;

[Trait("Category", "Fast")]
public sealed class DeliveryLedgerTests
{
    private static readonly long T0 = Stopwatch.GetTimestamp();

    [Fact]
    public void ADeliveryAfterTheAcknowledgementIsItsWakeLatencyAndOneBeforeItCountsZero()
    {
        var ledger = new DeliveryLedger(waitersPerUser: 2, new ScenarioStats("live-rest/wake", Measure.Wake));
        ledger.Expect(["a"], group: 0, second: 3);

        ledger.Receive(0, 0, "a", At(0));     // the waiting device holds it before the pusher has its answer
        ledger.Acknowledge(["a"], At(50));
        Assert.Equal(1, ledger.Owed);
        ledger.Receive(0, 1, "a", At(80));

        Assert.Equal(0, ledger.Owed);
        var wake = ledger.Wake.Latency;
        Assert.Equal(2, wake.TotalCount);
        Assert.Equal(0, wake.Min);
        Assert.InRange(wake.Max, 29_900, 30_100); // µs
        Assert.Equal(2, Assert.Single(ledger.Wake.Timeline, t => t.Second == 3).Latency.TotalCount);
        var counts = ledger.Count(waiters: 2);
        Assert.Equal((2, 2, 0, 1), (counts.Expected, counts.Delivered, counts.Missed, counts.BeforeAck));
    }

    [Fact]
    public void AnAcknowledgedChangeAWaitingDeviceNeverHeldIsMissed()
    {
        var ledger = new DeliveryLedger(waitersPerUser: 2, new ScenarioStats("live-grpc/wake", Measure.Wake));
        ledger.Expect(["a", "b"], group: 4, second: 0);
        ledger.Acknowledge(["a", "b"], At(10));

        ledger.Receive(4, 0, "a", At(20));
        ledger.Receive(4, 1, "a", At(20));
        ledger.Receive(4, 1, "b", At(30));

        Assert.Equal(1, ledger.Owed);
        var counts = ledger.Count(waiters: 2);
        Assert.Equal((4, 3, 1), (counts.Expected, counts.Delivered, counts.Missed));
        Assert.Equal(3, ledger.Wake.Syncs);
    }

    [Fact]
    public void AChangeHeldTwiceOrByAnotherUsersDeviceIsCountedAndNeverDelivered()
    {
        var ledger = new DeliveryLedger(waitersPerUser: 1, new ScenarioStats("live-rest/wake", Measure.Wake));
        ledger.Expect(["a"], group: 0, second: 0);
        ledger.Acknowledge(["a"], At(10));

        ledger.Receive(1, 0, "a", At(15));         // a device of group 1's user: not its change
        ledger.Receive(0, 0, "a", At(20));
        ledger.Receive(0, 0, "a", At(25));         // again
        ledger.Receive(0, 0, "warm-up", At(25));   // never registered: ignored

        var counts = ledger.Count(waiters: 2);
        Assert.Equal((1, 1, 1, 1), (counts.Expected, counts.Delivered, counts.Misdelivered, counts.Repeated));
        Assert.Equal(1, ledger.Wake.Syncs);
    }

    [Fact]
    public void AFailedPushIsOwedToNobody()
    {
        var ledger = new DeliveryLedger(waitersPerUser: 2, new ScenarioStats("live-rest/wake", Measure.Wake));
        ledger.Expect(["a"], group: 0, second: 0);
        ledger.Fail(["a"]);
        ledger.Receive(0, 0, "a", At(5)); // it may have been stored all the same

        var counts = ledger.Count(waiters: 2);
        Assert.Equal((0, 0, 1), (counts.Expected, counts.Missed, counts.UnacknowledgedPushes));
        Assert.Equal(0, ledger.Owed);
        Assert.Equal(0, ledger.Wake.Syncs);
    }

    private static long At(int milliseconds) => T0 + (long)(milliseconds * (Stopwatch.Frequency / 1000.0));
}
