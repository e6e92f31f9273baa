using Kobo.Sync.Domain.Ids;

namespace Kobo.Sync.Domain.Tests.Ids;

public sealed class DeviceIdsTests
{
    [Theory]
    [InlineData("kobo-libra-2")]
    [InlineData("Anna's Kobo Libra (\u00e9dition) \ud83d\udcda")]
    [InlineData("a b/c")]
    public void PrintableIdsOfUpTo128CodeUnitsAreValid(string id)
    {
        Assert.True(DeviceIds.IsValid(id));
        Assert.True(DeviceIds.IsValid(new string('d', DeviceIds.MaxLength)));
    }

    // Built here: a test runner's serialised theory data would replace a lone surrogate with U+FFFD.
    [Theory]
    [InlineData(0x0000)]
    [InlineData(0x0009)]
    [InlineData(0x001F)]
    [InlineData(0x007F)]
    [InlineData(0x0085)]
    [InlineData(0x009F)]
    [InlineData(0xD800)]
    [InlineData(0xDFFF)]
    public void AnIdWithAControlCharacterOrAnUnpairedSurrogateIsInvalid(int code)
    {
        Assert.False(DeviceIds.IsValid("kobo" + (char)code));
    }

    [Fact]
    public void AnEmptyOrTooLongIdIsInvalid()
    {
        Assert.False(DeviceIds.IsValid(string.Empty));
        Assert.False(DeviceIds.IsValid(new string('d', DeviceIds.MaxLength + 1)));
    }
}
