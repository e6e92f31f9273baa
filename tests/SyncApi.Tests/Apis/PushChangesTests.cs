using System.Net;
using System.Net.Http.Json;
using System.Text.Json;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;

namespace Kobo.Sync.SyncApi.Tests.Apis;

/// <summary>POST /v1/users/{userNo}/changes on a real PostgreSQL: results, versions, conflicts, replays, limits.</summary>
public sealed class PushChangesTests(SyncServiceDatabase db) : IClassFixture<SyncServiceDatabase>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    [Fact]
    public async Task ReplayingABatchTenTimesLeavesOneStoredState()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        object[] batch = [Upsert("k1", "first", T0), Upsert("k2", "second", T0, note: "a note"), Delete("k3", T0), Upsert("k1", "first, edited", T0.AddSeconds(1))];

        var first = await device.PushAsync(user, batch);
        var stored = await db.StoredAsync(user);
        for (var i = 0; i < 9; i++)
        {
            var again = await device.PushAsync(user, batch);
            // Nothing applies twice; k1's first edit now meets its own later edit and loses to it.
            Assert.Equal(["conflict", "unchanged", "unchanged", "unchanged"], again.Select(r => r.Str("status")));
            Assert.Equal(first.Select(r => r.Str("version")).Skip(1), again.Select(r => r.Str("version")).Skip(1));
        }

        Assert.Equal(["applied", "applied", "applied", "applied"], first.Select(r => r.Str("status")));
        Assert.Equal($"highlights/users{user}-ebooks/7/k1", first[0].Str("id"));
        Assert.Equal(stored, await db.StoredAsync(user));
        Assert.Equal(3, stored.Count);
        Assert.StartsWith("first, edited|", stored[$"highlights/users{user}-ebooks/7/k1"], StringComparison.Ordinal);
    }

    [Fact]
    public async Task APushWithTheDevicesTokenAnswersThatTokenWithThePushAsItsLastWriteAndABadTokenStoresNothing()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        var (_, token) = await device.PullAllAsync(user);

        using (var plain = await device.PushRawAsync(user, Upsert("k1", "no token", T0)))
        {
            Assert.False((await plain.Content.ReadFromJsonAsync<JsonElement>(TestTimeout.Token)).TryGetProperty("syncToken", out _));
        }

        using var withToken = await device.PostAsJsonAsync(
            new Uri($"/v1/users/{user}/changes?since={Uri.EscapeDataString(token)}", UriKind.Relative), new { changes = new[] { Upsert("k2", "with a token", T0) } }, TestTimeout.Token);
        var answer = await withToken.Content.ReadFromJsonAsync<JsonElement>(TestTimeout.Token);
        Assert.Equal(HttpStatusCode.OK, withToken.StatusCode);
        var carried = answer.Str("syncToken");
        Assert.NotEqual(token, carried);

        // The same position: a pull with it brings both pushes, as one with the token before them does.
        var (changes, end) = await device.PullAllAsync(user, carried);
        Assert.Equal([$"highlights/users{user}-ebooks/7/k1", $"highlights/users{user}-ebooks/7/k2"], changes.Select(c => c.Str("id")).Order());
        var (again, endFromOld) = await device.PullAllAsync(user, token);
        Assert.Equal(2, again.Count);
        Assert.Equal(endFromOld, end); // past the push, the token no longer names it: the same token either way

        // A token that is not this user's is refused before anything is stored.
        using var refused = await device.PostAsJsonAsync(
            new Uri($"/v1/users/{user}/changes?since=not-a-token", UriKind.Relative), new { changes = new[] { Upsert("k3", "refused", T0) } }, TestTimeout.Token);
        Assert.Equal(HttpStatusCode.BadRequest, refused.StatusCode);
        Assert.Equal("application/problem+json", refused.Content.Headers.ContentType?.MediaType);
        Assert.Contains("since", await refused.Content.ReadAsStringAsync(TestTimeout.Token), StringComparison.Ordinal);
        Assert.Equal(2, (await db.StoredAsync(user)).Count);
    }

    [Fact]
    public async Task TwoDevicesEditingTheSameHighlightConvergeFieldByFieldOnDeviceTime()
    {
        var user = db.NewUser();
        using var a = db.Device(user, "device-a");
        using var b = db.Device(user, "device-b");
        var created = await a.PushAsync(user, Upsert("h", "text", T0));
        var v1 = created[0].Str("version");

        // Both devices edit version 1 offline: a changes the colour, b the note, b later re-colours.
        var editA = a.PushAsync(user, Upsert("h", "text", T0.AddMinutes(1), color: "blue", baseVersion: v1));
        var editB = b.PushAsync(user, Upsert("h", "text", T0.AddMinutes(2), color: "yellow", note: "b's note", baseVersion: v1));
        var results = await Task.WhenAll(editA, editB);
        var lateA = await a.PushAsync(user, Upsert("h", "text by a", T0.AddMinutes(3), color: "pink", note: "b's note", baseVersion: v1));

        var (changesA, _) = await a.PullAllAsync(user);
        var (changesB, _) = await b.PullAllAsync(user);
        var final = Assert.Single(changesA);
        Assert.Equal(final.GetRawText(), Assert.Single(changesB).GetRawText());
        Assert.Equal("text by a", final.Str("text"));
        Assert.Equal("pink", final.Str("color"));
        Assert.Equal("b's note", final.Str("note"));
        Assert.Equal("applied", lateA[0].Str("status"));
        Assert.All(results, r => Assert.NotEqual("rejected", r[0].Str("status")));
    }

    [Fact]
    public async Task AStaleEditOlderThanTheStoredOneIsAConflictWithTheStoredVersion()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        var v1 = (await device.PushAsync(user, Upsert("h", "v1", T0)))[0].Str("version");
        var v2 = (await device.PushAsync(user, Upsert("h", "v2", T0.AddMinutes(5), baseVersion: v1)))[0].Str("version");

        var stale = await device.PushAsync(user, Upsert("h", "older edit", T0.AddMinutes(1), baseVersion: v1));

        Assert.Equal("conflict", stale[0].Str("status"));
        Assert.Equal(v2, stale[0].Str("version"));
        Assert.NotEmpty(stale[0].Str("reason"));
        Assert.StartsWith("v2|", (await db.StoredAsync(user)).Single().Value, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ADeleteWinsOverAnOlderEditAndLosesToANewerOne()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        await device.PushAsync(user, Upsert("old", "x", T0), Upsert("new", "x", T0.AddMinutes(10)));

        var results = await device.PushAsync(user, Delete("old", T0.AddMinutes(5)), Delete("new", T0.AddMinutes(5)));

        Assert.Equal(["applied", "conflict"], results.Select(r => r.Str("status")));
        var stored = await db.StoredAsync(user);
        Assert.EndsWith("|t", stored[$"highlights/users{user}-ebooks/7/old"], StringComparison.Ordinal);
        Assert.EndsWith("|f", stored[$"highlights/users{user}-ebooks/7/new"], StringComparison.Ordinal);
    }

    [Fact]
    public async Task ADeviceClockFarAheadIsClampedToServerTime()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        await device.PushAsync(user, Upsert("h", "from the future", DateTimeOffset.UtcNow.AddYears(1)));

        // Had the future time stuck, this honest later edit would lose.
        var later = await device.PushAsync(user, Upsert("h", "now", DateTimeOffset.UtcNow.AddSeconds(1)));

        Assert.Equal("applied", later[0].Str("status"));
    }

    [Fact]
    public async Task AMalformedChangeIsRejectedAloneWithAReason()
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        var results = await device.PushAsync(user,
            Upsert("ok", "fine", T0),
            Upsert("bad", "fine", T0, color: "purple"),
            Upsert("bad key!", "fine", T0),
            new { op = "rename", bookNo = "7", key = "k", modifiedAt = T0 },
            new { op = "upsert", bookNo = "07", key = "k", text = "t", start = 1, length = 1, color = "blue", modifiedAt = T0 },
            new { op = "delete", bookNo = "7", key = "k" },
            Upsert("v", "fine", T0, baseVersion: "not-a-version"));

        Assert.Equal("applied", results[0].Str("status"));
        Assert.All(results.Skip(1), r => Assert.Equal("rejected", r.Str("status")));
        Assert.Contains("color", results[1].Str("reason"), StringComparison.Ordinal);
        Assert.Equal($"highlights/users{user}-ebooks/7/bad", results[1].Str("id"));
        Assert.Contains("key", results[2].Str("reason"), StringComparison.Ordinal);
        Assert.Contains("op", results[3].Str("reason"), StringComparison.Ordinal);
        Assert.Contains("bookNo", results[4].Str("reason"), StringComparison.Ordinal);
        Assert.Contains("modifiedAt", results[5].Str("reason"), StringComparison.Ordinal);
        Assert.Contains("baseVersion", results[6].Str("reason"), StringComparison.Ordinal);
        Assert.Single(await db.StoredAsync(user));
    }

    [Fact]
    public async Task ABatchOfMoreThan500ChangesIs413ProblemJson()
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        using var response = await device.PushRawAsync(user, Enumerable.Range(0, 501).Select(i => Upsert("k" + i, "t", T0)).ToArray());

        Assert.Equal(HttpStatusCode.RequestEntityTooLarge, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        Assert.Empty(await db.StoredAsync(user));
    }

    [Fact]
    public async Task ABatchOfExactly500ChangesIsApplied()
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        var results = await device.PushAsync(user, Enumerable.Range(0, 500).Select(i => Upsert("k" + i, "t", T0)).ToArray());

        Assert.Equal(500, results.Count(r => r.Str("status") == "applied"));
        Assert.Equal(500, (await db.StoredAsync(user)).Count);
    }

    [Fact]
    public async Task PushingToAnotherUsersDataIsForbidden()
    {
        var user = db.NewUser();
        var other = db.NewUser();
        using var device = db.Device(user);

        using var response = await device.PushRawAsync(other, Upsert("k", "t", T0));

        Assert.Equal(HttpStatusCode.Forbidden, response.StatusCode);
        Assert.Empty(await db.StoredAsync(other));
    }

    [Theory]
    [InlineData("{}", "changes", "")]
    [InlineData("{\"changes\": 5}", "body", "Path: $.changes")]
    [InlineData("not json", "body", "Path: $")]
    [InlineData("{\"changes\": [", "body", "Path: $.changes")]
    [InlineData("{\"changes\": [], \"changes\": [{\"bookNo\": \"5\", \"key\": \"k\", \"op\": \"delete\", \"modifiedAt\": \"2024-03-01T10:00:00Z\"}]}", "body", "Duplicate")]
    [InlineData("{\"changes\": [{\"bookNo\": \"5\", \"key\": \"k\", \"op\": \"upsert\", \"text\": \"a\", \"start\": 0, \"length\": 1, \"text\": \"b\", \"modifiedAt\": \"2024-03-01T10:00:00Z\"}]}", "body", "Duplicate property 'text'")]
    public async Task AMalformedBodyIs400ProblemJsonSayingWhatWasWrong(string body, string field, string detail)
    {
        var user = db.NewUser();
        using var device = db.Device(user);

        using var response = await device.PostAsync(
            new Uri($"/v1/users/{user}/changes", UriKind.Relative),
            new StringContent(body, System.Text.Encoding.UTF8, "application/json"),
            TestTimeout.Token);

        Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token));
        Assert.Contains(detail, problem.RootElement.GetProperty("detail").GetString(), StringComparison.Ordinal);
        Assert.True(problem.RootElement.GetProperty("errors").TryGetProperty(field, out _), problem.RootElement.GetRawText());
        Assert.Empty(await db.StoredAsync(user));
    }

    [Fact]
    public async Task ABodyInACharsetTheServiceDoesNotKnowIs415ProblemJson()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        using var content = new ByteArrayContent(System.Text.Encoding.UTF8.GetBytes("{\"changes\": []}"));
        content.Headers.TryAddWithoutValidation("Content-Type", "application/json; charset=x-unknown");

        using var response = await device.PostAsync(new Uri($"/v1/users/{user}/changes", UriKind.Relative), content, TestTimeout.Token);

        Assert.Equal(HttpStatusCode.UnsupportedMediaType, response.StatusCode);
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var problem = JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token));
        Assert.Contains("x-unknown", problem.RootElement.GetProperty("detail").GetString(), StringComparison.Ordinal);
        Assert.Empty(await db.StoredAsync(user));
    }

    [Fact]
    public async Task PushingForAnUnknownUserIs404()
    {
        using var device = db.Device(987_654);

        using var response = await device.PushRawAsync(987_654, Upsert("k", "t", T0));

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        _ = JsonDocument.Parse(await response.Content.ReadAsStringAsync(TestTimeout.Token));
    }

    [Fact]
    public async Task PushResultsAreCountedByStatusInTheMetrics()
    {
        var user = db.NewUser();
        using var device = db.Device(user);
        await device.PushAsync(user, Upsert("m", "t", T0), Upsert("m2", "t", T0, color: "purple"));

        var metrics = await db.Factory.CreateClient().GetStringAsync(new Uri("/metrics", UriKind.Relative), TestTimeout.Token);

        var lines = metrics.Split('\n').Where(l => l.StartsWith("kobo_sync_push_changes", StringComparison.Ordinal)).ToArray();
        Assert.Contains(lines, l => l.Contains("status=\"applied\"", StringComparison.Ordinal));
        Assert.Contains(lines, l => l.Contains("status=\"rejected\"", StringComparison.Ordinal));
    }
}
