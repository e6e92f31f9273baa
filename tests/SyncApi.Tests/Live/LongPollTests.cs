using Kobo.Sync.Storage.Sql;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;
using static Kobo.Sync.SyncApi.Tests.Live.Support.TwoInstances;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>
/// GET /v1/users/{userNo}/changes?wait=N on two instances of the service sharing one PostgreSQL: a device
/// up to date waits, and is answered when a push commits, through any device on any instance.
/// </summary>
public sealed class LongPollTests(TwoInstances service) : IClassFixture<TwoInstances>
{
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    [Fact]
    public async Task ALongPollOnOneInstanceIsAnsweredWhenAPushCommitsOnTheOther()
    {
        var user = service.NewUser();
        using var reader = Rest(service.B, user, "reader");
        using var writer = Rest(service.A, user, "writer");
        var (_, token) = await reader.PullAllAsync(user);

        var poll = LongPollAsync(reader, user, token, wait: 20);
        await WaitingAsync(service.B, 1, "the reader waits on B");
        await Task.Delay(200, TestTimeout.Token);
        Assert.False(poll.IsCompleted);
        var pushed = DateTimeOffset.UtcNow;
        await writer.PushAsync(user, Upsert("live", "pushed on A", T0));
        var answer = await poll;

        Assert.Equal(200, answer.Status);
        Assert.Equal("pushed on A", Assert.Single(answer.Changes).Str("text"));
        Assert.True(DateTimeOffset.UtcNow - pushed < TimeSpan.FromSeconds(5), $"answered {DateTimeOffset.UtcNow - pushed} after the push");
        Assert.Null(answer.RetryAfter);
        await WaitingAsync(service.B, 0, "the waiter leaves");
        // The answer's token follows on: nothing more to pull.
        Assert.Empty((await reader.PullAllAsync(user, answer.Token)).Changes);
    }

    [Fact]
    public async Task AWakeIsMeasuredFromTheNotificationAndFromThePushAndTheWaitIsNotARequestLatency()
    {
        var user = service.NewUser();
        using var reader = Rest(service.B, user, "reader");
        using var writer = Rest(service.A, user, "writer");
        var (_, token) = await reader.PullAllAsync(user);
        using var instruments = new HostInstruments(service.B);
        using var hosting = new HostInstruments(service.B, "Microsoft.AspNetCore.Hosting");

        var poll = LongPollAsync(reader, user, token, wait: 20);
        await WaitingAsync(service.B, 1, "the reader waits on B");
        await writer.PushAsync(user, Upsert("measured", "pushed on A", T0));
        await poll;
        await reader.PullAllAsync(user); // a pull that does not wait is a request latency

        await EventuallyAsync(() => instruments.Count("kobo.sync.live.wake.duration") == 1, "the wake is recorded once its answer is written");
        Assert.Equal(1, instruments.Count("kobo.sync.live.delivery.duration"));
        Assert.True(instruments.Count("kobo.sync.live.notification.lag") >= 1);
        Assert.Equal(2, instruments.Count("kobo.sync.requests"));
        Assert.Equal(1, instruments.Count("kobo.sync.request.duration")); // the long poll is counted, not timed
        Assert.Equal(1, hosting.Count("http.server.request.duration")); // nor by ASP.NET Core
        using var http = new HttpClient { BaseAddress = service.B.RestAddress };
        http.DefaultRequestHeaders.Accept.ParseAdd("text/plain");
        var exposition = await http.GetStringAsync(new Uri("/metrics", UriKind.Relative), TestTimeout.Token);
        foreach (var line in new[]
        {
            "# TYPE kobo_sync_live_waiters gauge", "# TYPE kobo_sync_live_wake_duration_seconds histogram",
            "# TYPE kobo_sync_live_delivery_duration_seconds histogram", "# TYPE kobo_sync_live_notification_lag_seconds histogram",
        })
        {
            Assert.Contains(line, exposition, StringComparison.Ordinal);
        }

        Assert.Contains("endpoint=\"PullChangesWait\"", exposition, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ALongPollWithChangesWaitingIsAnsweredAtOnce()
    {
        var user = service.NewUser();
        using var device = Rest(service.A, user);
        await device.PushAsync(user, Upsert("a", "already there", T0));

        var answer = await LongPollAsync(device, user, null, wait: 20);

        Assert.Equal("already there", Assert.Single(answer.Changes).Str("text"));
        Assert.True(answer.Elapsed < TimeSpan.FromSeconds(5), $"took {answer.Elapsed}");
    }

    [Fact]
    public async Task AWaitThatEndsAnswersAnEmptyPageWhoseTokenStaysValid()
    {
        var user = service.NewUser();
        using var device = Rest(service.A, user);
        var (_, token) = await device.PullAllAsync(user);

        var answer = await LongPollAsync(device, user, token, wait: 1);
        await device.PushAsync(user, Upsert("later", "after the wait", T0));
        var (changes, _) = await device.PullAllAsync(user, answer.Token);

        Assert.Equal(200, answer.Status);
        Assert.Empty(answer.Changes);
        Assert.False(answer.Body.GetProperty("hasMore").GetBoolean());
        Assert.InRange(answer.Elapsed, TimeSpan.FromSeconds(0.9), TimeSpan.FromSeconds(5));
        Assert.Equal("after the wait", Assert.Single(changes).Str("text"));
    }

    [Fact]
    public async Task APushThatRollsBackWakesNobodyAndTheNextOneDoes()
    {
        var user = service.NewUser();
        using var reader = Rest(service.B, user, "reader");
        using var writer = Rest(service.A, user, "writer");
        var (_, token) = await reader.PullAllAsync(user);

        var poll = LongPollAsync(reader, user, token, wait: 3);
        await WaitingAsync(service.B, 1, "the reader waits on B");
        var before = await DatabaseStatements.SnapshotAsync(service.DataSource);
        using (var failed = await writer.PushRawAsync(user, Upsert("doomed", FailsAtCommit, T0)))
        {
            Assert.Equal(500, (int)failed.StatusCode); // the commit failed: nothing was stored
        }

        var answer = await poll;
        var ran = (await DatabaseStatements.SnapshotAsync(service.DataSource)).Since(before);

        Assert.Empty(answer.Changes);
        Assert.True(answer.Elapsed >= TimeSpan.FromSeconds(2.9), $"answered after {answer.Elapsed}");
        // Its only read was the check at the wait's end; woken, the device would have pulled once more.
        Assert.Equal(1, ran.Where(s => s.Query == ChangeSeqQueries.CommittedSeq).Sum(s => s.Calls));

        var next = LongPollAsync(reader, user, answer.Token, wait: 20);
        await WaitingAsync(service.B, 1, "the reader waits again");
        await writer.PushAsync(user, Upsert("kept", "committed", T0));
        Assert.Equal("committed", Assert.Single((await next).Changes).Str("text"));
    }

    [Fact]
    public async Task AnIdleDeviceWaitsAgainWithoutAPullAndAPushBetweenItsWaitsReachesItAtOnce()
    {
        var user = service.NewUser();
        using var reader = Rest(service.B, user, "reader");
        using var writer = Rest(service.A, user, "writer");
        var (_, token) = await reader.PullAllAsync(user);
        using var instruments = new HostInstruments(service.B);

        var first = await LongPollAsync(reader, user, token, wait: 1);
        var before = await DatabaseStatements.SnapshotAsync(service.DataSource);
        var second = await LongPollAsync(reader, user, first.Token, wait: 1);
        var ran = (await DatabaseStatements.SnapshotAsync(service.DataSource)).Since(before);

        Assert.Empty(second.Changes);
        Assert.Equal(first.Token, second.Token);
        Assert.Equal(1, instruments.Count("kobo.sync.live.resumed"));
        // It started without a pull, and ended with one check of the user's committed sequence: no page was read.
        Assert.Equal(1, ran.Where(s => s.Query == ChangeSeqQueries.CommittedSeq).Sum(s => s.Calls));
        Assert.DoesNotContain(ran, s => s.Query.Contains("FROM highlights", StringComparison.Ordinal));

        // Nobody waits now; the push's notification makes the next wait pull, and it finds the change.
        await writer.PushAsync(user, Upsert("between", "pushed between two waits", T0));
        var third = await LongPollAsync(reader, user, second.Token, wait: 20);

        Assert.Equal("pushed between two waits", Assert.Single(third.Changes).Str("text"));
        Assert.True(third.Elapsed < TimeSpan.FromSeconds(5), $"took {third.Elapsed}");
    }

    [Fact]
    public async Task AHeldLongPollOfADeviceRevokedThroughTheOtherInstanceEndsWith401BeforeItsWaitEnds()
    {
        var user = service.NewUser();
        using var reader = Rest(service.B, user, "reader");
        using var owner = Rest(service.A, user, "owner");
        var (_, token) = await reader.PullAllAsync(user);

        var poll = LongPollAsync(reader, user, token, wait: 30);
        await WaitingAsync(service.B, 1, "the reader waits on B");
        using (var revoked = await owner.DeleteAsync(new Uri($"/v1/users/{user}/devices/reader", UriKind.Relative), TestTimeout.Token))
        {
            Assert.Equal(204, (int)revoked.StatusCode);
        }

        var answer = await poll;

        // B learns of the revocation by its refresh (Sync:RevocationRefreshSeconds, 5 s), not at the end of the wait.
        Assert.Equal(401, answer.Status);
        Assert.True(answer.Elapsed < TimeSpan.FromSeconds(15), $"took {answer.Elapsed}");
        Assert.Contains("revoked", answer.Body.GetProperty("detail").GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task AHeldLongPollEndsWith401WhenItsTokenExpires()
    {
        var user = service.NewUser();
        using var device = new HttpClient { BaseAddress = service.B.RestAddress, Timeout = TimeSpan.FromSeconds(90) }
            .WithToken(TestTokens.For(user, expires: DateTime.UtcNow.AddSeconds(3)));

        var answer = await LongPollAsync(device, user, null, wait: 30);

        Assert.Equal(401, answer.Status);
        Assert.InRange(answer.Elapsed, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(10));
    }

    [Fact]
    public async Task ADeviceThatHangsUpLeavesTheRegistryAndTheGauge()
    {
        var user = service.NewUser();
        using var device = Rest(service.B, user);
        var (_, token) = await device.PullAllAsync(user);
        using var hangUp = new CancellationTokenSource();
        using var instruments = new HostInstruments(service.B);

        var poll = LongPollAsync(device, user, token, wait: 20, hangUp.Token);
        await WaitingAsync(service.B, 1, "the device waits");
        Assert.Equal(1, instruments.Sum("kobo.sync.live.waiters"));
        await hangUp.CancelAsync();

        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => poll);
        await EventuallyAsync(() => Waiters(service.B).Count == 0, "the waiter leaves when its device hangs up");
        Assert.Empty(Waiters(service.B).Users);
        Assert.Equal(0, instruments.Sum("kobo.sync.live.waiters"));
    }

    [Theory]
    [InlineData("61")]
    [InlineData("-1")]
    [InlineData("abc")]
    [InlineData("2.5")]
    public async Task AWaitOutside0To60OrNotAWholeNumberIs400(string wait)
    {
        var user = service.NewUser();
        using var device = Rest(service.A, user);

        var problem = await device.GetJsonAsync($"/v1/users/{user}/changes?wait={wait}", 400);

        Assert.Contains("wait", problem.GetProperty("errors").GetProperty("wait")[0].GetString(), StringComparison.Ordinal);
    }

    [Fact]
    public async Task ALongPollForAnotherUserIsForbiddenAtOnce()
    {
        using var device = Rest(service.A, service.NewUser());

        await device.GetJsonAsync($"/v1/users/{service.NewUser()}/changes?wait=20", 403);

        Assert.Equal(0, Waiters(service.A).Count);
    }
}
