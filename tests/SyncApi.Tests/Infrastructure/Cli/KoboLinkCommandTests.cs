using System.Net;
using Kobo.Sync.SyncApi.Infrastructure.Cli;
using Kobo.Sync.SyncApi.Tests.KoboProtocol.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.Configuration;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Cli;

/// <summary><c>token --kobo-link</c> makes a link in the database for development and prints its apiEndpoint.</summary>
public sealed class KoboLinkCommandTests(KoboServiceDatabase db) : IClassFixture<KoboServiceDatabase>
{
    private IConfiguration Configuration(Dictionary<string, string?>? more = null)
    {
        var settings = new Dictionary<string, string?>
        {
            ["Storage:ConnectionString"] = db.ConnectionString,
            ["Endpoints:Rest"] = "http://127.0.0.1:5080",
        };
        foreach (var (key, value) in more ?? [])
        {
            settings[key] = value;
        }

        return new ConfigurationBuilder().AddInMemoryCollection(settings).Build();
    }

    [Fact]
    public async Task ThePrintedLinkIsOneTheServiceAccepts()
    {
        var user = db.NewUser();
        using var output = new StringWriter();

        var exit = await KoboLinkCommand.RunAsync(Configuration(), ["token", "--kobo-link", "--user", user.ToString(System.Globalization.CultureInfo.InvariantCulture), "--device", "dev-kobo"], output, TextWriter.Null, TestTimeout.Token);

        Assert.Equal(0, exit);
        var endpoint = output.ToString().Trim();
        Assert.Matches("^http://127.0.0.1:5080/kobo/[A-Za-z0-9_-]{43}$", endpoint);
        using var kobo = new KoboReader(db.Factory.CreateClient(), endpoint);
        using var init = await kobo.SendAsync(HttpMethod.Get, "/v1/initialization");
        Assert.Equal(HttpStatusCode.OK, init.StatusCode);
        Assert.Contains("dev-kobo", await db.DeviceIdsAsync(user));
    }

    [Fact]
    public async Task ThePublicBaseUrlIsUsedWhenSet()
    {
        using var output = new StringWriter();

        var exit = await KoboLinkCommand.RunAsync(
            Configuration(new() { ["Kobo:PublicBaseUrl"] = "https://sync.example.org" }), ["token", "--kobo-link", "--user", db.NewUser().ToString(System.Globalization.CultureInfo.InvariantCulture)], output, TextWriter.Null, TestTimeout.Token);

        Assert.Equal(0, exit);
        Assert.StartsWith("https://sync.example.org/kobo/", output.ToString(), StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--user", "0")]
    [InlineData("--user", "abc")]
    [InlineData("--colour", "red")]
    public async Task BadArgumentsExitWithUsage(string option, string value)
    {
        using var error = new StringWriter();

        Assert.Equal(2, await KoboLinkCommand.RunAsync(Configuration(), ["token", "--kobo-link", option, value], TextWriter.Null, error, TestTimeout.Token));
        Assert.Contains("usage:", error.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnUnknownUserGetsNoLink()
    {
        using var error = new StringWriter();

        Assert.Equal(1, await KoboLinkCommand.RunAsync(Configuration(), ["token", "--kobo-link", "--user", "987654"], TextWriter.Null, error, TestTimeout.Token));
        Assert.Contains("does not exist", error.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task HelpListsTheOptionsAndMakesNoLink()
    {
        using var output = new StringWriter();

        Assert.Equal(0, await KoboLinkCommand.RunAsync(Configuration(), ["token", "--kobo-link", "--help"], output, TextWriter.Null, TestTimeout.Token));
        Assert.Contains("--kobo-link", output.ToString(), StringComparison.Ordinal);
        Assert.Contains("--user", output.ToString(), StringComparison.Ordinal);
        Assert.Contains("--device", output.ToString(), StringComparison.Ordinal);
        Assert.DoesNotContain("/kobo/", output.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ABadKoboSettingStopsTheCommandNamingTheKey()
    {
        using var error = new StringWriter();

        Assert.Equal(2, await KoboLinkCommand.RunAsync(
            Configuration(new() { ["Kobo:PublicBaseUrl"] = "sync.example.org" }), ["token", "--kobo-link", "--user", "1"], TextWriter.Null, error, TestTimeout.Token));
        Assert.Contains("Kobo:PublicBaseUrl", error.ToString(), StringComparison.Ordinal);
    }
}
