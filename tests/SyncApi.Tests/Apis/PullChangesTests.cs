using System.Collections.Concurrent;
using System.Text.Json;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Storage.Stores;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>GET /v1/users/{userNo}/changes on a real PostgreSQL: paging, tokens, tombstones, and no change ever skipped.</summary>
public sealed class PullChangesTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    private static IEnumerable<string> Ids(IEnumerable<JsonElement> changes) =>
        changes.Where(c => c.Str("kind") == "highlight").Select(c => c.Str("id"));

    [Fact]
    public async Task AFirstSyncInSmallPagesDeliversEveryHighlightOnce()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        await device.PushAsync(user, Enumerable.Range(0, 25).Select(i => Upsert($"k{i:D2}", "t" + i, T0)).ToArray());

        var pages = 0;
        string? token = null;
        var ids = new List<string>();
        JsonElement page;
        do
        {
            page = await device.PullPageAsync(user, token, pageSize: 7);
            pages++;
            Assert.InRange(page.GetProperty("changes").GetArrayLength(), 0, 7);
            ids.AddRange(Ids(page.GetProperty("changes").EnumerateArray()));
            token = page.GetProperty("syncToken").GetString();
        }
        while (page.GetProperty("hasMore").GetBoolean());

        Assert.Equal(4, pages);
        Assert.Equal(25, ids.Count);
        Assert.Equal(25, ids.Distinct().Count());
    }

    [Fact]
    public async Task APullAfterTheLastTokenHasOnlyNewerChangesAndAnOldTokenIsSafeToReplay()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        await device.PushAsync(user, Upsert("a", "t", T0));
        var (_, first) = await device.PullAllAsync(user);
        await device.PushAsync(user, Upsert("b", "t", T0));

        var (newer, second) = await device.PullAllAsync(user, first);
        var (again, _) = await device.PullAllAsync(user, first);
        var (none, _) = await device.PullAllAsync(user, second);

        Assert.Equal([$"highlights/users{user}-ebooks/7/b"], Ids(newer));
        Assert.Equal(Ids(newer), Ids(again));
        Assert.Empty(none);
    }

    [Fact]
    public async Task ADeleteReachesOtherDevicesAsATombstone()
    {
        var user = db.NewUser();
        using var a = db.Device(user, "a");
        using var b = db.Device(user, "b");
        await a.PushAsync(user, Upsert("h", "text", T0, note: "note"));
        var (_, tokenB) = await b.PullAllAsync(user);
        await a.PushAsync(user, Delete("h", T0.AddMinutes(1)));

        var (changes, _) = await b.PullAllAsync(user, tokenB);

        var tombstone = Assert.Single(changes);
        Assert.True(tombstone.GetProperty("deleted").GetBoolean());
        Assert.False(tombstone.TryGetProperty("text", out _));
        Assert.False(tombstone.TryGetProperty("note", out _));
        Assert.Equal("h", tombstone.Str("key"));
        Assert.Equal("7", tombstone.Str("bookNo"));
    }

    [Theory]
    [InlineData("garbage")]
    [InlineData("eyJ4IjoxfQ.AAAAAAAAAAAAAAAAAAAAAA")]
    public async Task ATamperedTokenIs400(string token)
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        var problem = await device.PullPageAsync(user, token, expect: 400);

        Assert.True(problem.GetProperty("errors").TryGetProperty("since", out _));
    }

    [Fact]
    public async Task AnotherUsersTokenIs400()
    {
        var user = db.NewUser();
        var other = db.NewUser();
        using var otherDevice = db.Device(other);
        var token = (await otherDevice.PullPageAsync(other, null)).GetProperty("syncToken").GetString();
        using var device = db.Device(user);

        await device.PullPageAsync(user, token, expect: 400);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1001)]
    public async Task APageSizeOutside1To1000Is400(int pageSize)
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        await device.PullPageAsync(user, null, pageSize, expect: 400);
    }

    [Fact]
    public async Task PullingAnotherUsersChangesIsForbidden()
    {
        using var device = db.Device(db.NewUser());
        await device.PullPageAsync(db.NewUser(), null, expect: 403);
    }

    [Fact]
    public async Task APullRacingAStreamOfConcurrentWritesMissesNothing()
    {
        var user = db.NewUser();
        var written = new ConcurrentDictionary<string, string>();
        using var reader = db.Device(user, "reader");
        await reader.PullPageAsync(user, null); // the service is up before the race starts
        using var stop = new CancellationTokenSource(TimeSpan.FromSeconds(20));

        // Four devices push small batches as fast as they can; each batch's transaction races the others
        // for the user's sequence and the pulls below race them all.
        var writers = Enumerable.Range(0, 4).Select(w => Task.Run(async () =>
        {
            using var device = db.Device(user, "writer-" + w);
            for (var i = 0; !stop.IsCancellationRequested; i++)
            {
                var keys = Enumerable.Range(0, 3).Select(j => $"w{w}-{i}-{j}").ToArray();
                var results = await PushAsADeviceDoesAsync(device, user, keys.Select(k => Upsert(k, "t", T0)).ToArray());
                foreach (var r in results)
                {
                    written[r.Str("id")] = r.Str("version");
                }
            }
        })).ToArray();

        // The race runs for at least 3 s and 40 pulls (the writers stop then), at most 20 s.
        var pulled = new HashSet<string>();
        var clock = System.Diagnostics.Stopwatch.StartNew();
        string? token = null;
        var pulls = 0;
        while (!writers.All(w => w.IsCompleted))
        {
            var page = await reader.PullPageAsync(user, token, pageSize: 5);
            pulled.UnionWith(Ids(page.GetProperty("changes").EnumerateArray()));
            token = page.GetProperty("syncToken").GetString();
            if (++pulls >= 40 && clock.Elapsed > TimeSpan.FromSeconds(3))
            {
                await stop.CancelAsync();
            }
        }

        await Task.WhenAll(writers);
        var (rest, _) = await reader.PullAllAsync(user, token, pageSize: 5);
        pulled.UnionWith(Ids(rest));

        Assert.True(pulls > 10, $"only {pulls} pulls raced the writers");
        Assert.True(written.Count > 30, $"only {written.Count} highlights written");
        Assert.Empty(written.Keys.Except(pulled));
        Assert.Equal(written.Count, (await db.StoredAsync(user)).Count);
    }

    /// <summary>
    /// Pushes a batch until the service accepts it, as a device does: a push refused with 503 (its database
    /// budget spent on a loaded machine) may still have committed, and the same batch again is a replay
    /// that stores nothing twice. The race above is about what a pull misses, not how fast pushes answer.
    /// </summary>
    private static async Task<JsonElement[]> PushAsADeviceDoesAsync(HttpClient device, long user, object[] changes)
    {
        for (var attempt = 1; ; attempt++)
        {
            using var response = await device.PushRawAsync(user, changes);
            if (response.StatusCode != System.Net.HttpStatusCode.ServiceUnavailable || attempt == 20)
            {
                var body = await response.Content.ReadAsStringAsync(TestTimeout.Token);
                Assert.True(response.IsSuccessStatusCode, $"push (attempt {attempt}): {(int)response.StatusCode} {body}");
                return JsonDocument.Parse(body).RootElement.GetProperty("results").EnumerateArray().Select(e => e.Clone()).ToArray();
            }

            await Task.Delay(TimeSpan.FromMilliseconds(100), TestTimeout.Token);
        }
    }

    [Fact]
    public async Task OwnershipChangesArePulledAsEntitlementsBeforeTheHighlightsOfTheSameMoment()
    {
        var user = db.NewUser();
        var store = new PostgresSyncStore(db.DataSource);
        using var device = db.Device(user);
        Assert.True(await store.SetOwnershipAsync(new UserNo(user), new BookNo(3), owned: true, TestTimeout.Token));
        await device.PushAsync(user, Upsert("h", "t", T0, book: 3));
        var (firstSync, token) = await device.PullAllAsync(user, pageSize: 1);
        Assert.True(await store.SetOwnershipAsync(new UserNo(user), new BookNo(3), owned: false, TestTimeout.Token));

        var (later, _) = await device.PullAllAsync(user, token);

        Assert.Equal(["entitlement", "highlight"], firstSync.Select(c => c.Str("kind")));
        Assert.Equal(("3", "Book 3", "Author 3", false), (firstSync[0].Str("bookNo"), firstSync[0].Str("title"), firstSync[0].Str("author"), firstSync[0].GetProperty("removed").GetBoolean()));
        var removal = Assert.Single(later);
        Assert.True(removal.GetProperty("removed").GetBoolean());
        Assert.False(await store.SetOwnershipAsync(new UserNo(user), new BookNo(999), owned: true, TestTimeout.Token));
    }
}
