using System.Text;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Queries;
using Kobo.Sync.Domain.Requests;

namespace Kobo.Sync.Domain.Tests.Queries;

public sealed class PageCursorsTests
{
    private static readonly PageCursors Cursors = new(Encoding.UTF8.GetBytes("a-test-key-that-is-at-least-32-bytes-long"));
    private static readonly string User12 = HighlightId.UserPrefix(new UserNo(12));
    private static readonly string User123 = HighlightId.UserPrefix(new UserNo(123));

    [Fact]
    public void AnIssuedCursorResolvesToTheLastIdInItsScope()
    {
        var lastId = User12 + "ebooks/5/h0001";
        Assert.Equal(lastId, Cursors.Resolve(User12, Cursors.Issue(User12, lastId)));
    }

    [Fact]
    public void ACursorDoesNotRevealTheScopeItWasIssuedFor()
    {
        var cursor = Cursors.Issue(User12, User12 + "ebooks/5/h0001");
        Assert.DoesNotContain("users12", Encoding.UTF8.GetString(Convert.FromBase64String(PadBase64(cursor.Split('.')[0]))), StringComparison.Ordinal);
    }

    [Fact]
    public void ACursorOfOneUserReplayedOnAnotherIsRejected()
    {
        var cursor = Cursors.Issue(User12, User12 + "ebooks/5/h0001");
        var error = Assert.Throws<InvalidRequestException>(() => Cursors.Resolve(User123, cursor));
        Assert.Equal("cursor", error.Field);
    }

    [Fact]
    public void ACursorOfOneBookReplayedOnAnotherIsRejected()
    {
        var book5 = HighlightId.BookPrefix(new UserNo(12), new BookNo(5));
        var book56 = HighlightId.BookPrefix(new UserNo(12), new BookNo(56));
        var cursor = Cursors.Issue(book5, book5 + "h0001");
        Assert.Throws<InvalidRequestException>(() => Cursors.Resolve(book56, cursor));
    }

    [Fact]
    public void ACursorSignedWithAnotherKeyIsRejected()
    {
        var other = new PageCursors(Encoding.UTF8.GetBytes("another-key-that-is-at-least-32-bytes-long"));
        var cursor = other.Issue(User12, User12 + "ebooks/5/h0001");
        Assert.Throws<InvalidRequestException>(() => Cursors.Resolve(User12, cursor));
    }

    [Theory]
    [InlineData("")]
    [InlineData(".")]
    [InlineData("abc")]
    [InlineData("abc.")]
    [InlineData(".abc")]
    [InlineData("!!!.???")]
    [InlineData("ZWJvb2tzLzUvaDAwMDE.AAAAAAAAAAAAAAAAAAAAAA")]
    [InlineData("ZWJvb2tzLzUvaDAwMDE.AAAA")]
    public void AMalformedOrForgedCursorIsRejected(string cursor) =>
        Assert.Throws<InvalidRequestException>(() => Cursors.Resolve(User12, cursor));

    [Fact]
    public void AnAlteredCursorIsRejectedWhicheverCharacterChanged()
    {
        var cursor = Cursors.Issue(User12, User12 + "ebooks/5/h0001");
        for (var i = 0; i < cursor.Length; i++)
        {
            if (cursor[i] == '.')
            {
                continue;
            }

            var altered = cursor[..i] + (cursor[i] == 'A' ? 'B' : 'A') + cursor[(i + 1)..];
            Assert.Throws<InvalidRequestException>(() => Cursors.Resolve(User12, altered));
        }
    }

    [Fact]
    public void AnOverlongCursorIsRejectedWithoutDecoding() =>
        Assert.Throws<InvalidRequestException>(() => Cursors.Resolve(User12, new string('A', 10_000) + ".AAAA"));

    [Fact]
    public void AShortKeyIsRefused() =>
        Assert.Throws<ArgumentException>(() => new PageCursors(new byte[31]));

    private static string PadBase64(string base64Url)
    {
        var s = base64Url.Replace('-', '+').Replace('_', '/');
        return s + new string('=', (4 - (s.Length % 4)) % 4);
    }
}
