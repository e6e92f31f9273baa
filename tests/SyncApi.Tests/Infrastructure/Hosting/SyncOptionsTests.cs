using Kobo.Sync.Storage;
using Kobo.Sync.SyncApi.Extensions;
using Microsoft.AspNetCore.Builder;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Hosting;

[Trait("Category", "Fast")]
public sealed class SyncOptionsTests
{
    /// <summary>
    /// The options as the service registers them (<c>AddDeviceApis</c>, validated on start), read from
    /// the built container: the same validation the start runs, without racing a test host's disposal.
    /// </summary>
    [Theory]
    [InlineData("Sync:MaxClockSkewSeconds", "-1")]
    [InlineData("Sync:TombstoneRetentionDays", "0")]
    [InlineData("Sync:PurgeIntervalSeconds", "0")]
    [InlineData("Sync:PurgeBatchSize", "0")]
    [InlineData("Sync:RevocationRefreshSeconds", "0")]
    [InlineData("Sync:MaxDevicesPerUser", "1")]
    [InlineData("Sync:MaxHighlightsPerUser", "999")]
    [InlineData("Sync:MaxHighlightsPerUser", "9999999999999")]
    [InlineData("Sync:MaxHighlightBytesPerUser", "1000")]
    [InlineData("Sync:MaxWaiters", "-1")]
    [InlineData("Sync:MaxWaitersPerUser", "0")]
    [InlineData("Sync:WaitRefusedRetryAfterSeconds", "0")]
    [InlineData("Sync:WatchHeartbeatSeconds", "301")]
    [InlineData("Sync:WatchMaxSeconds", "5")]
    public async Task AnOutOfRangeSyncSettingStopsTheStartNamingTheKey(string key, string value)
    {
        var builder = WebApplication.CreateBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?> { [key] = value });
        builder.AddDeviceApis();
        await using var app = builder.Build();

        var failure = Assert.Throws<OptionsValidationException>(object? () => app.Services.GetRequiredService<IOptions<SyncOptions>>().Value);

        Assert.Contains(key + " must be from", failure.Message, StringComparison.Ordinal);
    }
}
