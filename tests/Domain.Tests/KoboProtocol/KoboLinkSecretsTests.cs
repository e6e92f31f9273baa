using System.Security.Cryptography;
using Kobo.Sync.Domain.KoboProtocol;

namespace Kobo.Sync.Domain.Tests.KoboProtocol;

public sealed class KoboLinkSecretsTests
{
    private static readonly byte[] Key = RandomNumberGenerator.GetBytes(32);

    [Fact]
    public void ASecretMadeWithTheKeyIsIssuedAndWellFormed()
    {
        var secret = KoboLinkSecrets.New(Key);

        Assert.Equal(KoboLinkSecrets.SecretLength, secret.Length);
        Assert.True(KoboLinkSecrets.IsWellFormed(secret));
        Assert.True(KoboLinkSecrets.IsIssued(secret, Key));
    }

    [Fact]
    public void AWellFormedSecretNotMadeWithTheKeyIsNotIssued()
    {
        var random = Convert.ToBase64String(RandomNumberGenerator.GetBytes(32)).TrimEnd('=').Replace('+', '-').Replace('/', '_');

        Assert.True(KoboLinkSecrets.IsWellFormed(random));
        Assert.False(KoboLinkSecrets.IsIssued(random, Key));
        Assert.False(KoboLinkSecrets.IsIssued(KoboLinkSecrets.New(RandomNumberGenerator.GetBytes(32)), Key));
    }

    [Theory]
    [InlineData("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx")]
    [InlineData("short")]
    [InlineData("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA+")]
    public void ATextThatIsNoCanonicalSecretIsNotIssuedAndDoesNotThrow(string text) =>
        Assert.False(KoboLinkSecrets.IsIssued(text, Key));

    [Fact]
    public void AChangedCharacterLosesTheTag()
    {
        var secret = KoboLinkSecrets.New(Key).ToCharArray();
        secret[5] = secret[5] == 'A' ? 'B' : 'A';

        Assert.False(KoboLinkSecrets.IsIssued(new string(secret), Key));
    }

    [Fact]
    public void AKeyShorterThan32BytesIsRefused() =>
        Assert.Throws<ArgumentException>(() => KoboLinkSecrets.New(new byte[16]));
}
