using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>A highlight's optional Kobo location over REST: pushed, pulled and read exactly as sent.</summary>
public sealed class HighlightLocationTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    // Spacing, key order, an escaped dot and a long fraction: jsonb would rewrite all of them.
    private const string Location =
        """{"span": {"endPath":"span#kobo\\.30\\.1" ,"chapterProgress":0.88888888888888884,"startChar":0,"endChar":64,"startPath":"span#kobo\\.30\\.1","chapterFilename":"text/part0004.html","chapterTitle":"Introduction"}}""";

    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    private static object WithLocation(string key, DateTimeOffset at, string? location) =>
        new { op = "upsert", bookNo = "7", key, text = "If something is true", start = 0, length = 64, color = "yellow", modifiedAt = at, location };

    [Fact]
    public async Task ALocationIsPulledAndReadBackExactlyAsSent()
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        var results = await device.PushAsync(user, WithLocation("k", T0, Location), Upsert("plain", "no location", T0));
        var (changes, _) = await device.PullAllAsync(user);
        var page = await device.GetJsonAsync($"/v1/users/{user}/books/7/highlights", 200);

        Assert.Equal(["applied", "applied"], results.Select(r => r.Str("status")));
        Assert.Equal(Location, changes.Single(c => c.Str("key") == "k").Str("location"));
        Assert.False(changes.Single(c => c.Str("key") == "plain").TryGetProperty("location", out _));
        var items = page.GetProperty("items").EnumerateArray().ToArray();
        Assert.Equal(Location, items.Single(i => i.Str("id").EndsWith("/k", StringComparison.Ordinal)).Str("location"));
        Assert.False(items.Single(i => i.Str("id").EndsWith("/plain", StringComparison.Ordinal)).TryGetProperty("location", out _));
    }

    [Fact]
    public async Task ANewerRangeEditMovesTheLocationAndAStaleOneLoses()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        const string Moved = """{"span":{"chapterFilename":"text/part0009.html"}}""";
        await device.PushAsync(user, WithLocation("k", T0, Location));

        var newer = await device.PushAsync(user, WithLocation("k", T0.AddMinutes(2), Moved));
        var stale = await device.PushAsync(user, WithLocation("k", T0.AddMinutes(1), Location));
        var (changes, _) = await device.PullAllAsync(user);

        Assert.Equal(("applied", "conflict"), (newer[0].Str("status"), stale[0].Str("status")));
        Assert.Equal(Moved, Assert.Single(changes).Str("location"));
    }

    [Fact]
    public async Task ADeletionClearsTheLocation()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        await device.PushAsync(user, WithLocation("k", T0, Location));

        await device.PushAsync(user, Delete("k", T0.AddMinutes(1)));
        var (changes, _) = await device.PullAllAsync(user);

        var tombstone = Assert.Single(changes);
        Assert.True(tombstone.GetProperty("deleted").GetBoolean());
        Assert.False(tombstone.TryGetProperty("location", out _));
        Assert.Null(await db.LocationAsync(user, "k"));
    }

    [Fact]
    public async Task AnEmptyOversizedOrUnstorableLocationRejectsThatChangeAlone()
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        var results = await device.PushAsync(
            user,
            WithLocation("empty", T0, string.Empty),
            WithLocation("long", T0, new string('x', 4_097)),
            WithLocation("nul", T0, "{\"a\":\"\0\"}"),
            WithLocation("fine", T0, Location));

        Assert.Equal(["rejected", "rejected", "rejected", "applied"], results.Select(r => r.Str("status")));
        Assert.All(results.Take(3), r => Assert.StartsWith("location:", r.Str("reason"), StringComparison.Ordinal));
        Assert.Equal(Location, await db.LocationAsync(user, "fine"));
    }
}
