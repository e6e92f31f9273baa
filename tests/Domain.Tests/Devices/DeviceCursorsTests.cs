using System.Text;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Devices;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.Devices;

public sealed class DeviceCursorsTests
{
    private static readonly byte[] Key = Encoding.UTF8.GetBytes("a-test-key-that-is-at-least-32-bytes-long");
    private static readonly DeviceCursors Cursors = new(Key);
    private static readonly UserNo User = new(12);

    public static TheoryData<DevicePosition> Positions() => new()
    {
        new DevicePosition(new DateTimeOffset(2026, 11, 23, 7, 12, 9, TimeSpan.Zero).AddTicks(1_230), "kobo-libra-2"),
        new DevicePosition(null, "revoked|before|it|pulled"),
        new DevicePosition(DateTimeOffset.UnixEpoch, new string('ü', 128)),
    };

    [Theory]
    [MemberData(nameof(Positions))]
    public void AnIssuedCursorResolvesToItsPosition(DevicePosition position) =>
        Assert.Equal(position, Cursors.Resolve(User, Cursors.Issue(User, position)));

    [Fact]
    public void ACursorOfAnotherUserIsRejected()
    {
        var cursor = Cursors.Issue(User, new DevicePosition(null, "a"));

        var error = Assert.Throws<InvalidRequestException>(() => Cursors.Resolve(new UserNo(123), cursor));

        Assert.Equal("cursor", error.Field);
    }

    [Fact]
    public void NeitherAHighlightCursorNorASyncTokenPassesForADeviceCursor()
    {
        var highlightCursor = new PageCursors(Key).Issue("highlights/users12-", "highlights/users12-ebooks/5/k1");
        var syncToken = new SyncTokens(Key).Issue(User, SyncPosition.Start);

        Assert.Throws<InvalidRequestException>(() => Cursors.Resolve(User, highlightCursor));
        Assert.Throws<InvalidRequestException>(() => Cursors.Resolve(User, syncToken));
    }

    [Fact]
    public void EveryAlteredCharacterIsDetected()
    {
        var cursor = Cursors.Issue(User, new DevicePosition(DateTimeOffset.UnixEpoch, "reader"));
        for (var i = 0; i < cursor.Length; i++)
        {
            var altered = cursor[..i] + (cursor[i] == 'A' ? 'B' : 'A') + cursor[(i + 1)..];
            Assert.Throws<InvalidRequestException>(() => Cursors.Resolve(User, altered));
        }
    }
}
