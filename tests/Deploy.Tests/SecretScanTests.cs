using System.Text.RegularExpressions;
using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>Nothing that ships or deploys the service carries a credential: secrets come from a secrets store at run time.</summary>
[Trait("Category", "Fast")]
public sealed partial class SecretScanTests
{
    public static TheoryData<string> DeployFiles()
    {
        var data = new TheoryData<string>();
        foreach (var file in Directory.GetFiles(Repository.PathOf("deploy"), "*", SearchOption.AllDirectories)
                     .Where(f => !f.Contains($"{Path.DirectorySeparatorChar}.terraform{Path.DirectorySeparatorChar}", StringComparison.Ordinal))
                     .Append(Repository.PathOf("Dockerfile"))
                     .Append(Repository.PathOf(".dockerignore")))
        {
            data.Add(Path.GetRelativePath(Repository.Root, file).Replace('\\', '/'));
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(DeployFiles))]
    public void FileHoldsNoSecretLiteral(string file)
    {
        var text = File.ReadAllText(Repository.PathOf(file));

        Assert.DoesNotMatch(PemBlock(), text);
        Assert.DoesNotMatch(AwsAccessKeyId(), text);
        Assert.DoesNotMatch(AwsSecretKeySetting(), text);
        Assert.DoesNotMatch(RavenLicenseBody(), text);
        Assert.DoesNotMatch(LongBase64Blob(), text);
        Assert.DoesNotMatch(SecretAssignedALiteral(), text);
        Assert.DoesNotMatch(ConnectionStringPassword(), text);
    }

    [Fact]
    public void TheScanCatchesEachKindOfSecret()
    {
        // Guards the patterns themselves: each sample must be caught by exactly the pattern meant for it.
        Assert.Matches(PemBlock(), "-----BEGIN RSA PRIVATE KEY-----");
        Assert.Matches(AwsAccessKeyId(), "AKIAABCDEFGHIJKLMNOP");
        Assert.Matches(AwsSecretKeySetting(), "aws_secret_access_key = abc");
        Assert.Matches(RavenLicenseBody(), "{ \"Id\": \"x\", \"Name\": \"y\", \"Keys\": [\"a\"] }");
        Assert.Matches(LongBase64Blob(), new string('A', 200));
        Assert.Matches(SecretAssignedALiteral(), "admin_password = \"hunter2\"");
        Assert.DoesNotMatch(SecretAssignedALiteral(), "license_secret_arn = var.ravendb_license_secret_arn");
        Assert.DoesNotMatch(SecretAssignedALiteral(), "password = \"${var.x}\"");
        Assert.DoesNotMatch(SecretAssignedALiteral(), "http_tokens = \"required\"");
        Assert.Matches(ConnectionStringPassword(), "Host=a,b,c;Username=kobo;Password=hunter2hunter2;Target Session Attributes=primary");
        Assert.DoesNotMatch(ConnectionStringPassword(), "Username=kobo;Password=$password;Target Session Attributes=primary");
        Assert.DoesNotMatch(ConnectionStringPassword(), "Password=$(secret app);Host Recheck Seconds=1");
    }

    [GeneratedRegex("-----BEGIN [A-Z ]*(PRIVATE KEY|CERTIFICATE)-----")]
    private static partial Regex PemBlock();

    [GeneratedRegex(@"\b(AKIA|ASIA)[0-9A-Z]{16}\b")]
    private static partial Regex AwsAccessKeyId();

    [GeneratedRegex(@"aws_secret_access_key\s*[=:]", RegexOptions.IgnoreCase)]
    private static partial Regex AwsSecretKeySetting();

    [GeneratedRegex(@"""Keys""\s*:\s*\[")]
    private static partial Regex RavenLicenseBody();

    [GeneratedRegex("[A-Za-z0-9+/]{160,}={0,2}")]
    private static partial Regex LongBase64Blob();

    // A connection string with its password written out; "Password=$..." (filled in at run time) is fine.
    [GeneratedRegex(@"\bPassword=[^$;\s""'.]", RegexOptions.IgnoreCase)]
    private static partial Regex ConnectionStringPassword();

    [GeneratedRegex(@"\b\w*(password|passwd|secret|token|api_key|private_key)\s*[=:]\s*""[^""$\s{][^""]*""", RegexOptions.IgnoreCase)]
    private static partial Regex SecretAssignedALiteral();
}
