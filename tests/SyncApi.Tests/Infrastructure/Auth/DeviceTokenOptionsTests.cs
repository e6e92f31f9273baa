using Kobo.Sync.SyncApi.Extensions;
using Kobo.Sync.SyncApi.Infrastructure.Auth;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Auth;

[Trait("Category", "Fast")]
public sealed class DeviceTokenOptionsTests
{
    /// <summary>The options as <c>AddDeviceAuth</c> registers them (validated on start), read from the built container.</summary>
    [Theory]
    [InlineData("0")]
    [InlineData("8761")]
    public async Task AnOutOfRangeMaxTokenLifetimeStopsTheStartNamingTheKey(string hours)
    {
        var builder = WebApplication.CreateBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Auth:SigningKey"] = TestTokens.SigningKey,
            ["Auth:MaxTokenLifetimeHours"] = hours,
        });
        builder.AddDeviceAuth();
        await using var app = builder.Build();

        var failure = Assert.Throws<OptionsValidationException>(object? () => app.Services.GetRequiredService<IOptions<DeviceTokenOptions>>().Value);

        Assert.Contains("Auth:MaxTokenLifetimeHours must be from 1 to 8760", failure.Message, StringComparison.Ordinal);
    }
}
