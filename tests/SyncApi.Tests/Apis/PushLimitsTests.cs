using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// POST /v1/users/{userNo}/changes with text the store cannot keep: each such change is rejected
/// alone, naming its field, and the rest of the batch lands.
/// </summary>
public sealed class PushLimitsTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    private static async Task<string[]> PulledKeysAsync(HttpClient device, long user) =>
        (await device.PullAllAsync(user)).Changes.Where(c => c.Str("kind") == "highlight").Select(c => c.Str("key")).Order(StringComparer.Ordinal).ToArray();

    [Fact]
    public async Task ATextOrNoteHoldingNulIsRejectedAloneAndTheRestOfTheBatchLands()
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        var results = await device.PushAsync(user,
            Upsert("before", "fine", T0),
            Upsert("nul-text", "a\0b", T0),
            Upsert("nul-note", "fine", T0, note: "\0"),
            Upsert("after", "fine", T0, note: "a note"));

        Assert.Equal(["applied", "rejected", "rejected", "applied"], results.Select(r => r.Str("status")));
        Assert.StartsWith("text:", results[1].Str("reason"), StringComparison.Ordinal);
        Assert.Contains("U+0000", results[1].Str("reason"), StringComparison.Ordinal);
        Assert.StartsWith("note:", results[2].Str("reason"), StringComparison.Ordinal);
        Assert.Equal($"highlights/users{user}-ebooks/7/nul-text", results[1].Str("id"));
        Assert.Equal(["after", "before"], await PulledKeysAsync(device, user));
        Assert.Equal(2, (await db.StoredAsync(user)).Count);
    }
}
