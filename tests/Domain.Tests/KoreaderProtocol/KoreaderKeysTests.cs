using Kobo.Sync.Domain.KoreaderProtocol;

namespace Kobo.Sync.Domain.Tests.KoreaderProtocol;

public sealed class KoreaderKeysTests
{
    // main.lua doLogin/doRegister: userkey = md5(password), lower-case hex (ffi/sha2 md5).
    [Fact]
    public void TheKeyIsTheLowerCaseHexMd5OfThePassword() =>
        Assert.Equal("5ebe2294ecd0e0f08eab7690d2a6ee69", KoreaderKeys.KeyOf("secret"));

    [Fact]
    public void AStoredHashMatchesItsKeyAndNoOther()
    {
        var stored = KoreaderKeys.Hash("5ebe2294ecd0e0f08eab7690d2a6ee69", iterations: 1_000);

        Assert.StartsWith("pbkdf2-sha256$1000$", stored);
        Assert.True(KoreaderKeys.Verify("5ebe2294ecd0e0f08eab7690d2a6ee69", stored));
        Assert.False(KoreaderKeys.Verify("5EBE2294ECD0E0F08EAB7690D2A6EE69", stored));
        Assert.False(KoreaderKeys.Verify("5ebe2294ecd0e0f08eab7690d2a6ee6", stored));
    }

    [Fact]
    public void TwoHashesOfOneKeyDifferByTheirSalt() =>
        Assert.NotEqual(KoreaderKeys.Hash("k", 1_000), KoreaderKeys.Hash("k", 1_000));

    [Theory]
    [InlineData("")]
    [InlineData("pbkdf2-sha256$x$AA==$AA==")]
    [InlineData("pbkdf2-sha256$0$AA==$AA==")]
    [InlineData("md5$1000$AA==$AA==")]
    [InlineData("pbkdf2-sha256$1000$not base64$AA==")]
    public void AMalformedStoredFormMatchesNothing(string stored) => Assert.False(KoreaderKeys.Verify("k", stored));

    [Fact]
    public void APasswordIsTwentyFourTypableCharacters()
    {
        var password = KoreaderKeys.NewPassword();

        Assert.Equal(24, password.Length);
        Assert.All(password, c => Assert.Contains(c, "abcdefghijklmnopqrstuvwxyz234567"));
        Assert.NotEqual(password, KoreaderKeys.NewPassword());
    }
}
