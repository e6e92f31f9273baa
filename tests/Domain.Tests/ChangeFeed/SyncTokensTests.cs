using System.Text;
using Kobo.Sync.Domain.ChangeFeed;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.ChangeFeed;

public sealed class SyncTokensTests
{
    private static readonly SyncTokens Tokens = new(Encoding.UTF8.GetBytes("a-test-key-that-is-at-least-32-bytes-long"));
    private static readonly UserNo User = new(12);
    private static readonly byte[] Key = Encoding.UTF8.GetBytes("a-test-key-that-is-at-least-32-bytes-long");
    private static readonly SyncPosition Position = new(41, "highlights/users12-ebooks/5/k1", 40, 5, PagesInSync: 3, ReadingSeq: 39, ReadingBook: 8);

    [Fact]
    public void AnIssuedTokenResolvesToItsPosition() =>
        Assert.Equal(Position, Tokens.Resolve(User, Tokens.Issue(User, Position)));

    [Fact]
    public void TheStartPositionRoundTrips() =>
        Assert.Equal(SyncPosition.Start, Tokens.Resolve(User, Tokens.Issue(User, SyncPosition.Start)));

    [Fact]
    public void ATokenOfAnotherUserIsRejected()
    {
        var error = Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(new UserNo(123), Tokens.Issue(User, SyncPosition.Start)));
        Assert.Equal("since", error.Field);
    }

    [Fact]
    public void EachKindOfTokenOpensOnlyAsItsOwnKind()
    {
        var feed = Tokens.Issue(User, Position);
        var library = Tokens.Issue(User, Position, SyncTokenKind.KoboLibrary);

        Assert.Equal(Position, Tokens.Resolve(User, feed, SyncTokenKind.ChangeFeed));
        Assert.Equal(Position, Tokens.Resolve(User, library, SyncTokenKind.KoboLibrary));
        Assert.Equal("since", Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(User, library)).Field);
        Assert.Equal("since", Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(User, feed, SyncTokenKind.KoboLibrary)).Field);
    }

    [Fact]
    public void ATokenSignedWithAnotherKeyIsRejected()
    {
        var other = new SyncTokens(Encoding.UTF8.GetBytes("another-test-key-that-is-at-least-32-bytes"));
        Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(User, other.Issue(User, Position)));
    }

    [Fact]
    public void EveryAlteredCharacterIsDetected()
    {
        var token = Tokens.Issue(User, Position);
        for (var i = 0; i < token.Length; i++)
        {
            var altered = token[..i] + (token[i] == 'A' ? 'B' : 'A') + token[(i + 1)..];
            Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(User, altered));
        }
    }

    [Theory]
    [InlineData("")]
    [InlineData(".")]
    [InlineData("abc")]
    [InlineData("abc.")]
    [InlineData(".abc")]
    [InlineData("a b.c")]
    public void GarbageIsRejected(string token) =>
        Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(User, token));

    [Fact]
    public void APageCursorIsNotASyncToken()
    {
        var cursors = new PageCursors(Encoding.UTF8.GetBytes("a-test-key-that-is-at-least-32-bytes-long"));
        var prefix = HighlightId.UserPrefix(User);
        Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(User, cursors.Issue(prefix, prefix + "ebooks/5/k1")));
    }

    [Fact]
    public void ATokenIssuedBeforeReadingStatesStillResolvesAndHasSeenNoReadingState()
    {
        // Format 2: "2|hseq|eseq|ebook|pages in sync|id suffix", signed as this service signed it then.
        var token = FormatTwoTokens.Issue(Key, User, "2|41|40|5|3|ebooks/5/k1");

        var position = Tokens.Resolve(User, token);

        Assert.Equal(new SyncPosition(41, "highlights/users12-ebooks/5/k1", 40, 5, 3, ReadingSeq: 0, ReadingBook: 0), position);
    }

    [Fact]
    public void TheDevicesLastWriteRoundTripsAndATokenIssuedBeforeWritesWereCarriedKnowsOfNone()
    {
        var written = Position with { WrittenSeq = 57 };
        Assert.Equal(written, Tokens.Resolve(User, Tokens.Issue(User, written)));
        Assert.StartsWith("5|", Payload(Tokens.Issue(User, written)), StringComparison.Ordinal);
        Assert.StartsWith("4|", Payload(Tokens.Issue(User, Position)), StringComparison.Ordinal); // what builds before format 5 read

        // Format 4: as format 5 without the written seq, signed as this service signed it then.
        var collection = Guid.NewGuid();
        var token = FormatTwoTokens.Issue(Key, User, $"4|41|40|5|3|39|8|38|{collection:N}|ebooks/5/k1");
        Assert.Equal(Position with { CollectionSeq = 38, CollectionId = collection }, Tokens.Resolve(User, token));

        // A written seq that is not a number is not this service's.
        Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(User, FormatTwoTokens.Issue(Key, User, $"5|41|40|5|3|39|8|38|{collection:N}|x|ebooks/5/k1")));
        Assert.True((SyncPosition.Start with { WrittenSeq = 9 }).IsStart); // a full sync whatever the device wrote
    }

    private static string Payload(string token) => Encoding.UTF8.GetString(System.Buffers.Text.Base64Url.DecodeFromChars(token.Split('.')[0]));

    [Fact]
    public void ATokenOfAnUnknownFormatIsRejected()
    {
        Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(User, FormatTwoTokens.Issue(Key, User, "4|41|40|5|3|39|8|ebooks/5/k1")));
        Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(User, FormatTwoTokens.Issue(Key, User, "3|41|40|5|3|ebooks/5/k1")));
        Assert.Throws<InvalidRequestException>(() => Tokens.Resolve(User, FormatTwoTokens.Issue(Key, User, "2|41|40|5|3|39|8|ebooks/5/k1")));
    }
}
