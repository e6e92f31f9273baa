using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Sync;

public sealed class SyncOptionsTests
{
    [Theory]
    [InlineData("Sync:MaxClockSkewSeconds", "-1")]
    [InlineData("Sync:TombstoneRetentionDays", "0")]
    [InlineData("Sync:PurgeIntervalSeconds", "0")]
    [InlineData("Sync:PurgeBatchSize", "0")]
    [InlineData("Sync:RevocationRefreshSeconds", "0")]
    public void AnOutOfRangeSyncSettingStopsTheStartNamingTheKey(string key, string value)
    {
        using var factory = new SyncApiFactory(new Dictionary<string, string?> { [key] = value });

        var failure = Assert.Throws<OptionsValidationException>(() => factory.CreateClient());

        Assert.Contains(key + " must be from", failure.Message, StringComparison.Ordinal);
    }
}
