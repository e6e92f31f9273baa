using Kobo.Sync.SyncApi.Infrastructure.Live;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Npgsql;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;
using static Kobo.Sync.SyncApi.Tests.Live.Support.TwoInstances;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary><c>Sync:LivePull=false</c>: pushes send no NOTIFY, and every wait is answered at once with when to come back.</summary>
public sealed class LivePullOffTests(LivePullOffTests.Off service) : IClassFixture<LivePullOffTests.Off>
{
    public sealed class Off : TwoInstances
    {
        protected override IReadOnlyDictionary<string, string?> Settings => new Dictionary<string, string?> { ["Sync:LivePull"] = "false" };

        protected override bool Listens => false;
    }

    [Fact]
    public async Task PushesNotifyNobodyAndAWaitIsAnsweredAtOnceWithRetryAfter()
    {
        var user = service.NewUser();
        using var device = Rest(service.A, user);
        await using var listener = await service.DataSource.OpenConnectionAsync(TestTimeout.Token);
        var notified = 0;
        listener.Notification += (_, _) => Interlocked.Increment(ref notified);
        await using (var listen = new NpgsqlCommand($"LISTEN {ChangeNotification.Channel}", listener))
        {
            await listen.ExecuteNonQueryAsync(TestTimeout.Token);
        }

        await device.PushAsync(user, Upsert("quiet", "nobody hears of it", DateTimeOffset.UtcNow.AddHours(-1)));
        await listener.WaitAsync(TimeSpan.FromMilliseconds(500), TestTimeout.Token);
        var (_, token) = await device.PullAllAsync(user);
        var answer = await LongPollAsync(device, user, token, wait: 20);

        Assert.Equal(0, notified);
        Assert.Equal(200, answer.Status);
        Assert.Empty(answer.Changes);
        Assert.True(answer.Elapsed < TimeSpan.FromSeconds(3), $"took {answer.Elapsed}");
        Assert.InRange(answer.RetryAfter!.Value, TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(60));
    }
}
