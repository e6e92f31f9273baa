using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Tests.Ids;

public sealed class BookUuidTests
{
    [Fact]
    public void ABooksUuidIsTheFixedPrefixFollowedByItsNumberInHex()
    {
        Assert.Equal("6b6f626f-5379-8e63-8000-00000000dd8d", BookUuid.Format(new BookNo(56717)));
        Assert.Equal(Guid.Parse("6b6f626f-5379-8e63-8000-00000000dd8d"), BookUuid.From(new BookNo(56717)));
    }

    [Theory]
    [InlineData(1L)]
    [InlineData(63_510L)]
    [InlineData(281_474_976_710_656L)] // 2^48: past the last 12 hex digits
    [InlineData(999_999_999_999_999_999L)] // the largest book number (18 digits)
    public void EveryBookNumberComesBackFromItsUuidAsTextAndAsGuid(long number)
    {
        var book = new BookNo(number);

        Assert.True(BookUuid.TryParse(BookUuid.Format(book), out var fromText));
        Assert.True(BookUuid.TryParse(BookUuid.From(book), out var fromGuid));
        Assert.True(BookUuid.TryParse(BookUuid.Format(book).ToUpperInvariant(), out var fromUpper));
        Assert.Equal(book, fromText);
        Assert.Equal(book, fromGuid);
        Assert.Equal(book, fromUpper);
    }

    [Fact]
    public void TheUuidIsAVersion8RfcVariantUuid()
    {
        var text = BookUuid.Format(new BookNo(42));

        Assert.Equal('8', text[14]);
        Assert.Contains(text[19], "89ab");
    }

    [Theory]
    [InlineData("3f1c8c7e-2b5a-4d2e-9a51-7b1c0e6d9f10")] // a store book's UUID
    [InlineData("6b6f626f-5379-8e63-8000-000000000000")] // book 0
    [InlineData("6b6f626f-5379-8e63-8de0-b6b3a7640000")] // 10^18: 19 digits
    [InlineData("6b6f626f-5379-8e63-9000-00000000dd8d")] // another variant nibble
    [InlineData("6b6f626f53798e63800000000000dd8d")] // not the canonical form
    [InlineData("{6b6f626f-5379-8e63-8000-00000000dd8d}")]
    [InlineData("")]
    [InlineData(null)]
    public void AUuidNotOfThatFormMapsToNoBook(string? text)
    {
        Assert.False(BookUuid.TryParse(text, out _));
    }
}
