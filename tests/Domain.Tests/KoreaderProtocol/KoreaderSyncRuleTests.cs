using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.KoreaderProtocol;
using Kobo.Sync.Domain.ReadingStates;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.KoreaderProtocol;

/// <summary>The conflict rule of a KOReader write to a book (KoreaderSync.Decide).</summary>
public sealed class KoreaderSyncRuleTests
{
    private static readonly BookNo Book = new(7);
    private static readonly DateTimeOffset Now = new(2026, 11, 29, 10, 0, 0, TimeSpan.Zero);

    private static ValidReadingState At(double percent, DateTimeOffset at) => new(new ReadingPosition(percent, null, at), null, null);

    private static KoreaderPut Sent(double percentage, string deviceId = "kindle") => new("doc", "/body/p[1]", percentage, "Kindle", deviceId, null);

    private static ReadingState Stored(double percent, DateTimeOffset at) => new(Book, new ReadingPosition(percent, "kobo", at), null, null);

    [Fact]
    public void ALowerPercentageOverAnotherDevicesPositionChangesNothing()
    {
        var decision = KoreaderSync.Decide(Book, Stored(60, Now.AddHours(-1)), null, At(30, Now), Sent(0.3), null);

        Assert.Equal((ChangeStatus.Conflict, null, null), (decision.Result, decision.State, decision.Mark));
    }

    [Fact]
    public void AHigherPercentageAtReceiptTimeMovesThePositionAndKeepsKoreadersPart()
    {
        var decision = KoreaderSync.Decide(Book, Stored(60, Now.AddHours(-1)), null, At(70, Now), Sent(0.7), "content:C1");

        Assert.Equal(ChangeStatus.Applied, decision.Result);
        Assert.Equal(new ReadingPosition(70, null, Now), decision.State!.Position);
        Assert.Equal(new KoreaderMark("/body/p[1]", 0.7, "Kindle", "kindle", "content:C1", Now), decision.Mark);
    }

    [Fact]
    public void TheDeviceThatWroteThePositionMayMoveItBack()
    {
        var earlier = Now.AddMinutes(-5);
        var mark = new KoreaderMark("/body/p[9]", 0.6, "Kindle", "kindle", null, earlier);

        var own = KoreaderSync.Decide(Book, Stored(60, earlier), mark, At(50, Now), Sent(0.5), null);
        var other = KoreaderSync.Decide(Book, Stored(60, earlier), mark, At(50, Now), Sent(0.5, "phone"), null);

        Assert.Equal(ChangeStatus.Applied, own.Result);
        Assert.Equal(ChangeStatus.Conflict, other.Result);
    }

    [Fact]
    public void APositionWithALaterDeviceTimeWinsOverTheReceiptTime()
    {
        var decision = KoreaderSync.Decide(Book, Stored(60, Now.AddMinutes(2)), null, At(80, Now), Sent(0.8), null);

        Assert.Equal(ChangeStatus.Conflict, decision.Result);
    }
}
