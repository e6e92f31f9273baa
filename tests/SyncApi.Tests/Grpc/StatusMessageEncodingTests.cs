using Kobo.Sync.SyncApi.Grpc.Wire;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

public sealed class StatusMessageEncodingTests
{
    [Theory]
    [InlineData("plain ASCII text", "plain ASCII text")]
    [InlineData("100%", "100%25")]
    [InlineData("café", "caf%C3%A9")]
    [InlineData("a\nb\tc", "a%0Ab%09c")]
    [InlineData("~ and DEL\u007F", "~ and DEL%7F")]
    [InlineData("日", "%E6%97%A5")]
    [InlineData("😀", "%F0%9F%98%80")]
    public void OnlySpaceAndVisibleAsciiOtherThanPercentStayAsTheyAre(string message, string encoded)
    {
        Assert.Equal(encoded, StatusMessageEncoding.Encode(message));
        Assert.Equal(message, StatusMessageEncoding.Decode(encoded));
    }

    [Theory]
    [InlineData("100%", "100%")]
    [InlineData("%G1 stays", "%G1 stays")]
    [InlineData("trailing %4", "trailing %4")]
    [InlineData("lower %c3%a9", "lower é")]
    [InlineData("bad utf8 %FF", "bad utf8 \uFFFD")]
    public void DecodingNeverFailsOnBrokenInput(string encoded, string decoded) =>
        Assert.Equal(decoded, StatusMessageEncoding.Decode(encoded));
}
