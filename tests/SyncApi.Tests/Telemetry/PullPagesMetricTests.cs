using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Telemetry;

/// <summary>
/// The pages-per-sync histogram. In the serial telemetry collection: every service in the test
/// process publishes to the same meter name, so exact counts need the other services quiet.
/// </summary>
[Collection(TelemetryCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class PullPagesMetricTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    [Fact]
    public async Task EachCompletedSyncRecordsHowManyPagesItTookAndTheNextSyncCountsAfresh()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        await device.PushAsync(user, Enumerable.Range(0, 25).Select(i => Upsert($"p{i:D2}", "t" + i, T0)).ToArray());
        var (countBefore, sumBefore) = await PullPagesMetricAsync();

        string? token = null;
        JsonElement page;
        do
        {
            page = await device.PullPageAsync(user, token, pageSize: 7);
            token = page.GetProperty("syncToken").GetString();
        }
        while (page.GetProperty("hasMore").GetBoolean());
        Assert.False((await device.PullPageAsync(user, token, pageSize: 7)).GetProperty("hasMore").GetBoolean());

        var (countAfter, sumAfter) = await PullPagesMetricAsync();
        Assert.Equal(2, countAfter - countBefore); // two syncs completed
        Assert.Equal(4 + 1, sumAfter - sumBefore); // the first took 4 pages, the next one 1
        Assert.False(page.TryGetProperty("pageOfSync", out _));
    }

    private async Task<(double Count, double Sum)> PullPagesMetricAsync()
    {
        using var client = db.Factory.CreateClient();
        var metrics = await Scrape.TextAsync(client);
        return (Exposition.Sum(metrics, "kobo_sync_pull_pages_count", ("protocol", "rest")),
            Exposition.Sum(metrics, "kobo_sync_pull_pages_sum", ("protocol", "rest")));
    }
}
