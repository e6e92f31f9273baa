using System.Net;
using System.Text;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>
/// POST /v1/users/{userNo}/changes with text the store cannot keep and device times outside the
/// accepted range: each such change is rejected alone, naming its field, and the rest of the batch lands.
/// </summary>
public sealed class PushLimitsTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    private static object UpsertAt(string key, string modifiedAt) =>
        new { op = "upsert", bookNo = "7", key, text = "t", start = 10, length = 42, color = "yellow", modifiedAt };

    private async Task<JsonElement[]> PushBodyAsync(HttpClient device, long user, string body)
    {
        using var response = await device.PostAsync(
            new Uri($"/v1/users/{user}/changes", UriKind.Relative), new StringContent(body, Encoding.UTF8, "application/json"), TestTimeout.Token);
        var answer = await response.Content.ReadAsStringAsync(TestTimeout.Token);
        Assert.True(response.StatusCode == HttpStatusCode.OK, $"push: {(int)response.StatusCode} {answer}");
        return JsonDocument.Parse(answer).RootElement.GetProperty("results").EnumerateArray().Select(e => e.Clone()).ToArray();
    }

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

    [Fact]
    public async Task AnUnpairedSurrogateEscapedInTextRejectsThatChangeNotTheWholeBody()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        var at = T0.ToString("O", System.Globalization.CultureInfo.InvariantCulture);

        // Half of an emoji, as a JavaScript device serialises a selection that cut it in two.
        var results = await PushBodyAsync(device, user, $$"""
            { "changes": [
              { "op": "upsert", "bookNo": "7", "key": "half", "text": "smile \ud83d", "start": 1, "length": 2, "color": "blue", "modifiedAt": "{{at}}" },
              { "op": "upsert", "bookNo": "7", "key": "whole", "text": "smile \ud83d\ude00 \u00e9\n", "start": 1, "length": 2, "color": "blue", "modifiedAt": "{{at}}" } ] }
            """);

        Assert.Equal(["rejected", "applied"], results.Select(r => r.Str("status")));
        Assert.StartsWith("text:", results[0].Str("reason"), StringComparison.Ordinal);
        Assert.Contains("surrogate", results[0].Str("reason"), StringComparison.Ordinal);
        var pulled = Assert.Single((await device.PullAllAsync(user)).Changes, c => c.Str("kind") == "highlight");
        Assert.Equal("smile \U0001F600 \u00e9\n", pulled.Str("text"));
    }

    [Theory]
    [InlineData("2024-03-01T10:00:00", "offset")]
    [InlineData("2024-03-01", "offset")]
    [InlineData("0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z")]
    [InlineData("1969-12-31T23:59:59.999999Z", "1970-01-01T00:00:00Z")]
    [InlineData("9999-12-31T23:59:59-05:00", "9999-12-31T23:59:59.999999Z")]
    [InlineData("yesterday", "ISO 8601")]
    public async Task AModifiedAtWithoutAnOffsetOrOutsideTheRangeIsRejectedAlone(string modifiedAt, string hint)
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        var results = await device.PushAsync(user, UpsertAt("bad", modifiedAt), Upsert("good", "fine", T0));

        Assert.Equal(["rejected", "applied"], results.Select(r => r.Str("status")));
        Assert.StartsWith("modifiedAt:", results[0].Str("reason"), StringComparison.Ordinal);
        Assert.Contains(hint, results[0].Str("reason"), StringComparison.Ordinal);
        Assert.Equal(["good"], await PulledKeysAsync(device, user));
    }

    [Fact]
    public async Task TheUnixEpochIsTheEarliestAcceptedTimeAndIsStoredAsIs()
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        var results = await device.PushAsync(user, UpsertAt("epoch", "1970-01-01T01:00:00+01:00"), UpsertAt("before", "1970-01-01T00:59:59+01:00"));

        Assert.Equal(["applied", "rejected"], results.Select(r => r.Str("status")));
        var pulled = Assert.Single((await device.PullAllAsync(user)).Changes, c => c.Str("kind") == "highlight");
        Assert.Equal(DateTimeOffset.UnixEpoch, pulled.GetProperty("modifiedAt").GetDateTimeOffset());
    }
}
