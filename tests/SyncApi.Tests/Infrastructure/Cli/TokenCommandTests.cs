using Kobo.Sync.SyncApi.Infrastructure.Cli;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.Configuration;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Cli;

/// <summary>The documented <c>token</c> command mints tokens the service accepts.</summary>
public sealed class TokenCommandTests : IDisposable
{
    private readonly SyncApiFactory _service = new();

    private static readonly IConfiguration Configuration = new ConfigurationBuilder()
        .AddInMemoryCollection(new Dictionary<string, string?> { ["Auth:SigningKey"] = TestTokens.SigningKey })
        .Build();

    public void Dispose() => _service.Dispose();

    [Fact]
    public async Task AMintedTokenReadsItsOwnUser()
    {
        using var output = new StringWriter();
        var exit = TokenCommand.Run(Configuration, ["token", "--user", "12", "--device", "my-reader"], output, TextWriter.Null);

        Assert.Equal(0, exit);
        var user = await _service.CreateClient().WithToken(output.ToString().Trim()).GetJsonAsync("/v1/users/12", 200);
        Assert.Equal(12, user.GetProperty("userNo").GetInt64());
    }

    [Fact]
    public void ARangeMintsOneLinePerUser()
    {
        using var output = new StringWriter();
        Assert.Equal(0, TokenCommand.Run(Configuration, ["token", "--users", "5-7"], output, TextWriter.Null));
        var lines = output.ToString().Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(["5", "6", "7"], lines.Select(l => l.Split('\t')[0]));
    }

    [Theory]
    [InlineData("--user", "0")]
    [InlineData("--user", "abc")]
    [InlineData("--users", "9-3")]
    [InlineData("--colour", "red")]
    public void BadArgumentsExitWithUsage(string option, string value)
    {
        using var error = new StringWriter();
        Assert.Equal(2, TokenCommand.Run(Configuration, ["token", option, value], TextWriter.Null, error));
        Assert.Contains("usage:", error.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void ATokenLongerLivedThanTheServiceAcceptsIsNotMinted()
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        Assert.Equal(2, TokenCommand.Run(Configuration, ["token", "--user", "12", "--hours", "721"], output, error));
        Assert.Empty(output.ToString());
        Assert.Contains("Auth:MaxTokenLifetimeHours", error.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void WithoutASigningKeyItSaysWhichKeyToSet()
    {
        using var error = new StringWriter();
        var empty = new ConfigurationBuilder().Build();
        Assert.Equal(2, TokenCommand.Run(empty, ["token", "--user", "12"], TextWriter.Null, error));
        Assert.Contains("Auth:SigningKey", error.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void HelpListsTheOptionsAndMintsNothing()
    {
        using var output = new StringWriter();
        Assert.Equal(0, TokenCommand.Run(Configuration, ["token", "--help"], output, TextWriter.Null));
        foreach (var option in new[] { "--user", "--users", "--device", "--hours", "--kobo-link" })
        {
            Assert.Contains(option, output.ToString(), StringComparison.Ordinal);
        }

        Assert.DoesNotContain("eyJ", output.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void HoursWithoutAValueIsRefusedNamingTheOptionRatherThanDropped()
    {
        using var output = new StringWriter();
        using var error = new StringWriter();
        Assert.Equal(2, TokenCommand.Run(Configuration, ["token", "--user", "5", "--hours"], output, error));
        Assert.Empty(output.ToString());
        Assert.Contains("--hours", error.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void ABadSettingStopsTheCommandNamingTheKey()
    {
        using var error = new StringWriter();
        var configuration = new ConfigurationBuilder()
            .AddInMemoryCollection(new Dictionary<string, string?> { ["Auth:SigningKey"] = TestTokens.SigningKey, ["Auth:MaxTokenLifetimeHours"] = "0" })
            .Build();
        Assert.Equal(2, TokenCommand.Run(configuration, ["token", "--user", "12"], TextWriter.Null, error));
        Assert.Contains("Auth:MaxTokenLifetimeHours must be from 1 to 8760", error.ToString(), StringComparison.Ordinal);
    }
}
