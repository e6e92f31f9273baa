using Kobo.Sync.SyncApi.Infrastructure.Live;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;
using static Kobo.Sync.SyncApi.Tests.Live.Support.TwoInstances;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>
/// The change listener's connection is cut (<c>pg_terminate_backend</c>) while devices wait, and kept
/// from coming back while a change commits: its notification is lost, and the re-check every waiting
/// device makes once the listener listens again delivers it.
/// </summary>
public sealed class ListenerReconnectTests(ListenerReconnectTests.OwnDatabase service) : IClassFixture<ListenerReconnectTests.OwnDatabase>
{
    /// <summary>This class refuses connections to its database for a while: it has one of its own.</summary>
    public sealed class OwnDatabase : TwoInstances;

    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    [Fact]
    public async Task AChangePushedWhileTheListenerIsDisconnectedReachesTheWaitingDevicesOnceItListensAgain()
    {
        var user = service.NewUser();
        var bystander = service.NewUser();
        using var reader = Rest(service.B, user, "reader");
        using var idle = Rest(service.B, bystander, "idle");
        using var writer = Rest(service.A, user, "writer");
        // A's pool keeps a few connections open: the push in the gap cannot open a new one.
        await Task.WhenAll(Enumerable.Range(0, 6).Select(i => writer.PushAsync(user, Upsert("warm-" + i, "warming the writer's pool", T0))));
        var (_, token) = await reader.PullAllAsync(user);
        var (_, idleToken) = await idle.PullAllAsync(bystander);
        var listener = service.B.Services.GetRequiredService<ChangeListener>();
        using var instruments = new HostInstruments(service.B);

        var poll = LongPollAsync(reader, user, token, wait: 25);
        var idlePoll = LongPollAsync(idle, bystander, idleToken, wait: 3);
        await WaitingAsync(service.B, 2, "two devices wait on B");
        await AdminAsync($"ALTER DATABASE {service.Name} WITH ALLOW_CONNECTIONS false");
        try
        {
            await AdminAsync("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND application_name = $2",
                service.Name, ChangeListener.ApplicationName);
            await EventuallyAsync(() => !listener.IsListening, "B's listener notices it is cut off");

            // Nobody listens: the notification of this commit is lost. (The push uses a connection A's pool holds.)
            await writer.PushAsync(user, Upsert("gap", "pushed while nobody listened", T0));
            await Task.Delay(500, TestTimeout.Token);
            Assert.False(poll.IsCompleted, poll.IsCompleted ? $"answered: {(await poll).Status} {(await poll).Body}" : null);
        }
        finally
        {
            await AdminAsync($"ALTER DATABASE {service.Name} WITH ALLOW_CONNECTIONS true");
        }

        var reconnected = DateTimeOffset.UtcNow;
        var answer = await poll;

        Assert.Equal("pushed while nobody listened", Assert.Single(answer.Changes).Str("text"));
        Assert.True(DateTimeOffset.UtcNow - reconnected < TimeSpan.FromSeconds(10), $"answered {DateTimeOffset.UtcNow - reconnected} after connections were allowed again");
        Assert.True(listener.IsListening);
        Assert.Equal(1, instruments.Sum("kobo.sync.live.listener.reconnects"));
        // The bystander re-checked too, found nothing, and slept on until its wait ended.
        var idleAnswer = await idlePoll;
        Assert.Empty(idleAnswer.Changes);
        Assert.True(idleAnswer.Elapsed >= TimeSpan.FromSeconds(2.9), $"the bystander was answered after {idleAnswer.Elapsed}");
    }
}
