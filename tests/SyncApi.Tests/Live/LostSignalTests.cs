using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Apis.Support.SyncCalls;
using static Kobo.Sync.SyncApi.Tests.Live.Support.TwoInstances;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>
/// Live pull's signals are sent after the commit, so one can be lost (the instance that took the push
/// stops first). Here the pushes that lose theirs go through a third instance with live pull off: they
/// commit and tell nobody. A waiting device still gets such a change when its wait (or its watch's
/// heartbeat) ends, not later. And the signals that are sent go many pushes to a notification, none
/// inside a push's transaction.
/// </summary>
public sealed class LostSignalTests(LostSignalTests.WithSilentInstance service) : IClassFixture<LostSignalTests.WithSilentInstance>
{
    /// <summary>A and B as always (heartbeats every second, signals gathered for 200 ms), and <see cref="Silent"/>.</summary>
    public sealed class WithSilentInstance : TwoInstances
    {
        private SyncGrpcTestHost? _silent;

        /// <summary>An instance with live pull off on the same database: its pushes commit and tell nobody.</summary>
        public SyncGrpcTestHost Silent => _silent ?? throw new InvalidOperationException("The service is not started yet.");

        protected override IReadOnlyDictionary<string, string?> Settings => new Dictionary<string, string?>
        {
            ["Sync:WatchHeartbeatSeconds"] = "1",
            ["Sync:LiveSignalCoalesceMs"] = "200",
        };

        public override async Task InitializeAsync()
        {
            await base.InitializeAsync();
            _silent = new SyncGrpcTestHost(ConnectionString, settings: new Dictionary<string, string?> { ["Sync:LivePull"] = "false" });
        }

        public override async Task DisposeAsync()
        {
            _silent?.Dispose();
            await base.DisposeAsync();
        }
    }

    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    [Fact]
    public async Task AChangeWhoseSignalWasLostReachesAWaitingDeviceWhenItsWaitEnds()
    {
        var user = service.NewUser();
        using var reader = Rest(service.B, user, "reader");
        using var writer = Rest(service.Silent, user, "writer");
        var (_, token) = await reader.PullAllAsync(user);

        var poll = LongPollAsync(reader, user, token, wait: 3);
        await WaitingAsync(service.B, 1, "the reader waits on B");
        await writer.PushAsync(user, Upsert("unsignalled", "nobody was told", T0));
        var answer = await poll;

        Assert.Equal("nobody was told", Assert.Single(answer.Changes).Str("text"));
        Assert.True(answer.Elapsed >= TimeSpan.FromSeconds(2.9), $"answered after {answer.Elapsed}: it was not told, it checked at the end");
    }

    [Fact]
    public async Task AWaitResumedWithoutAPullChecksAtItsEndToo()
    {
        var user = service.NewUser();
        using var reader = Rest(service.B, user, "reader");
        using var writer = Rest(service.Silent, user, "writer");
        var (_, token) = await reader.PullAllAsync(user);
        using var instruments = new HostInstruments(service.B);

        var first = await LongPollAsync(reader, user, token, wait: 1);
        await writer.PushAsync(user, Upsert("between", "pushed between two waits, unsignalled", T0));
        var second = await LongPollAsync(reader, user, first.Token, wait: 1);

        Assert.Empty(first.Changes);
        Assert.Equal(1, instruments.Count("kobo.sync.live.resumed")); // the second wait started without a pull
        Assert.Equal("pushed between two waits, unsignalled", Assert.Single(second.Changes).Str("text"));
    }

    [Fact]
    public async Task AWatchFindsAChangeWhoseSignalWasLostAtItsNextHeartbeat()
    {
        var user = service.NewUser();
        var metadata = GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(user));
        using var call = service.B.Client.Sync.WatchChanges(
            new WatchChangesRequest { UserNo = user }, metadata, DateTime.UtcNow.AddSeconds(15), TestTimeout.Token);
        Assert.True(await call.ResponseStream.MoveNext(TestTimeout.Token));
        Assert.Empty(call.ResponseStream.Current.Changes); // the current token: nothing yet

        var push = new PushChangesRequest { UserNo = user };
        push.Changes.Add(new PushedChange
        {
            Op = "upsert", BookNo = 7, Key = "unsignalled", Text = "nobody was told", Start = 1, Length = 2, Color = "yellow",
            ModifiedAt = Timestamp.FromDateTimeOffset(T0),
        });
        await service.Silent.Client.Sync.PushChangesAsync(push, metadata, cancellationToken: TestTimeout.Token);
        var pushed = DateTimeOffset.UtcNow;
        WatchChangesResponse page;
        do
        {
            Assert.True(await call.ResponseStream.MoveNext(TestTimeout.Token), "the stream ended without the change");
            page = call.ResponseStream.Current;
        }
        while (page.Heartbeat);

        Assert.Equal("nobody was told", Assert.Single(page.Changes).Highlight.Text);
        Assert.True(DateTimeOffset.UtcNow - pushed < TimeSpan.FromSeconds(8), $"found {DateTimeOffset.UtcNow - pushed} after the push");
    }

    [Fact]
    public async Task PushesAreToldToTheOtherInstancesManyToANotificationAndNoneInsideAPush()
    {
        const int Users = 20;
        var users = Enumerable.Range(0, Users).Select(_ => service.NewUser()).ToArray();
        var readers = users.Select(u => Rest(service.B, u, "reader")).ToArray();
        var writers = users.Select(u => Rest(service.A, u, "writer")).ToArray();
        try
        {
            var tokens = await Task.WhenAll(users.Select(async (u, i) => (await readers[i].PullAllAsync(u)).Token));
            var polls = users.Select((u, i) => LongPollAsync(readers[i], u, tokens[i], wait: 30)).ToArray();
            await WaitingAsync(service.B, Users, "every reader waits on B");
            var before = await DatabaseStatements.SnapshotAsync(service.DataSource);

            await Task.WhenAll(users.Select((u, i) => writers[i].PushAsync(u, Upsert("told", "told " + u, T0))));
            var answers = await Task.WhenAll(polls);
            var ran = (await DatabaseStatements.SnapshotAsync(service.DataSource)).Since(before);

            Assert.All(answers.Zip(users), a => Assert.Equal("told " + a.Second, Assert.Single(a.First.Changes).Str("text")));
            Assert.All(answers, a => Assert.True(a.Elapsed < TimeSpan.FromSeconds(20), $"answered after {a.Elapsed}: woken, not at the wait's end"));
            var notifications = ran.Where(s => s.Query.Contains("pg_notify", StringComparison.Ordinal)).Sum(s => s.Calls);
            Assert.InRange(notifications, 1, Users / 2);
        }
        finally
        {
            Array.ForEach(readers, r => r.Dispose());
            Array.ForEach(writers, w => w.Dispose());
        }
    }
}
