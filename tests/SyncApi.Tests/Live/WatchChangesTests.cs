using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Live.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Live.Support.TwoInstances;

namespace Kobo.Sync.SyncApi.Tests.Live;

/// <summary>The gRPC server stream <c>WatchChanges</c> on two instances sharing one PostgreSQL.</summary>
public sealed class WatchChangesTests(WatchChangesTests.QuickHeartbeat service) : IClassFixture<WatchChangesTests.QuickHeartbeat>
{
    /// <summary>Heartbeats every second, so that an idle stream shows one quickly.</summary>
    public sealed class QuickHeartbeat : TwoInstances
    {
        protected override IReadOnlyDictionary<string, string?> Settings => new Dictionary<string, string?> { ["Sync:WatchHeartbeatSeconds"] = "1" };
    }

    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);

    private static PushedChange Upsert(string key, string text) => new()
    {
        Op = "upsert", BookNo = 7, Key = key, Text = text, Start = 1, Length = 2, Color = "yellow", ModifiedAt = Timestamp.FromDateTimeOffset(T0),
    };

    private static Task<PushChangesResponse> PushAsync(SyncGrpcTestHost host, long user, params PushedChange[] changes)
    {
        var request = new PushChangesRequest { UserNo = user };
        request.Changes.AddRange(changes);
        return host.Client.Sync.PushChangesAsync(request, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(user)), cancellationToken: TestTimeout.Token).ResponseAsync;
    }

    private static AsyncServerStreamingCall<WatchChangesResponse> Watch(
        SyncGrpcTestHost host, long user, string since = "", int pageSize = 0, DateTime? deadline = null, CancellationToken cancellationToken = default) =>
        host.Client.Sync.WatchChanges(
            new WatchChangesRequest { UserNo = user, Since = since, PageSize = pageSize },
            GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(user)), deadline ?? DateTime.UtcNow.AddSeconds(25), cancellationToken);

    private static async Task<WatchChangesResponse> NextAsync(AsyncServerStreamingCall<WatchChangesResponse> call, bool skipHeartbeats = true)
    {
        while (true)
        {
            Assert.True(await call.ResponseStream.MoveNext(TestTimeout.Token), "the stream ended");
            if (!skipHeartbeats || !call.ResponseStream.Current.Heartbeat)
            {
                return call.ResponseStream.Current;
            }
        }
    }

    [Fact]
    public async Task AWatchOnOneInstanceGetsAPageWhenAPushCommitsOnTheOther()
    {
        var user = service.NewUser();
        using var call = Watch(service.B, user);
        var first = await NextAsync(call);
        Assert.Empty(first.Changes); // nothing yet: the current token
        Assert.False(first.HasMore);

        await PushAsync(service.A, user, Upsert("a", "pushed on A"));
        var page = await NextAsync(call);

        Assert.Equal("pushed on A", Assert.Single(page.Changes).Highlight.Text);
        Assert.False(page.Heartbeat);
        Assert.NotEqual(first.SyncToken, page.SyncToken);
        await PushAsync(service.A, user, Upsert("b", "and again"));
        Assert.Equal("and again", Assert.Single((await NextAsync(call)).Changes).Highlight.Text);
    }

    [Fact]
    public async Task AWatchSendsTheBacklogInPagesThenLiveChanges()
    {
        var user = service.NewUser();
        await PushAsync(service.A, user, Enumerable.Range(0, 5).Select(i => Upsert("k" + i, "t" + i)).ToArray());
        using var call = Watch(service.B, user, pageSize: 2);

        var pages = new[] { await NextAsync(call), await NextAsync(call), await NextAsync(call) };

        Assert.Equal([2, 2, 1], pages.Select(p => p.Changes.Count));
        Assert.Equal([true, true, false], pages.Select(p => p.HasMore));
        await PushAsync(service.A, user, Upsert("k9", "live"));
        Assert.Equal("live", Assert.Single((await NextAsync(call)).Changes).Highlight.Text);
    }

    [Fact]
    public async Task AnIdleWatchSendsHeartbeatsCarryingItsLastToken()
    {
        var user = service.NewUser();
        using var call = Watch(service.B, user);
        var first = await NextAsync(call);

        var beat = await NextAsync(call, skipHeartbeats: false);

        Assert.True(beat.Heartbeat);
        Assert.Empty(beat.Changes);
        Assert.Equal(first.SyncToken, beat.SyncToken);
    }

    [Fact]
    public async Task AWatchEndsAtItsDeadlineAndAnotherResumesFromTheLastTokenWithoutLosingAChange()
    {
        var user = service.NewUser();
        string token;
        using (var opening = Watch(service.B, user))
        {
            token = (await NextAsync(opening)).SyncToken;
        }

        // The short watch ends at its deadline whether or not its first page arrived before it (on a busy
        // machine it may not): either way, its last token is the one to resume from.
        using (var call = Watch(service.B, user, token, deadline: DateTime.UtcNow.AddSeconds(2)))
        {
            var ended = await Assert.ThrowsAsync<RpcException>(async () =>
            {
                while (await call.ResponseStream.MoveNext(TestTimeout.Token))
                {
                    token = call.ResponseStream.Current.SyncToken;
                }
            });
            Assert.Equal(StatusCode.DeadlineExceeded, ended.StatusCode);
        }

        await EventuallyAsync(() => Waiters(service.B).Count == 0, "the ended watches leave the registry");
        await PushAsync(service.A, user, Upsert("between", "pushed between two watches"));
        using var resumed = Watch(service.A, user, token);

        Assert.Equal("pushed between two watches", Assert.Single((await NextAsync(resumed)).Changes).Highlight.Text);
    }

    [Fact]
    public async Task ACancelledWatchLeavesTheRegistry()
    {
        var user = service.NewUser();
        using var cancel = new CancellationTokenSource();
        using var call = Watch(service.B, user, cancellationToken: cancel.Token);
        await NextAsync(call);
        await WaitingAsync(service.B, 1, "the watch waits");

        await cancel.CancelAsync();

        await EventuallyAsync(() => Waiters(service.B).Count == 0, "the cancelled watch leaves");
    }

    [Fact]
    public async Task AWatchOfADeviceRevokedMeanwhileEndsUnauthenticatedAtItsNextMessage()
    {
        var user = service.NewUser();
        using var call = Watch(service.B, user);
        await NextAsync(call);
        using var owner = Rest(service.B, user, "another-device");

        using (var revoked = await owner.DeleteAsync(new Uri($"/v1/users/{user}/devices/test-device", UriKind.Relative), TestTimeout.Token))
        {
            Assert.Equal(204, (int)revoked.StatusCode);
        }

        var ended = await Assert.ThrowsAsync<RpcException>(() => NextAsync(call, skipHeartbeats: false));
        Assert.Equal(StatusCode.Unauthenticated, ended.StatusCode);
    }

    [Fact]
    public async Task AWatchEndsUnauthenticatedOnceItsTokenExpires()
    {
        var user = service.NewUser();
        var token = TestTokens.For(user, expires: DateTime.UtcNow.AddSeconds(3));
        using var call = service.B.Client.Sync.WatchChanges(
            new WatchChangesRequest { UserNo = user }, GrpcTestClient.ToMetadata([new("authorization", $"Bearer {token}")]),
            DateTime.UtcNow.AddSeconds(25), TestTimeout.Token);
        await NextAsync(call);

        var ended = await Assert.ThrowsAsync<RpcException>(async () =>
        {
            while (true)
            {
                await NextAsync(call, skipHeartbeats: false); // heartbeats every second until the token expires
            }
        });

        Assert.Equal(StatusCode.Unauthenticated, ended.StatusCode);
    }

    [Fact]
    public async Task WatchingAnotherUsersChangesIsPermissionDenied()
    {
        var call = service.A.Client.Sync.WatchChanges(
            new WatchChangesRequest { UserNo = service.NewUser() }, GrpcTestClient.ToMetadata(SyncGrpcTestHost.As(service.NewUser())),
            cancellationToken: TestTimeout.Token);

        var error = await Assert.ThrowsAsync<RpcException>(() => call.ResponseStream.MoveNext(TestTimeout.Token));

        Assert.Equal(StatusCode.PermissionDenied, error.StatusCode);
    }

    [Fact]
    public async Task WatchingWithoutATokenIsUnauthenticated()
    {
        var call = service.A.Client.Sync.WatchChanges(new WatchChangesRequest { UserNo = 1 }, cancellationToken: TestTimeout.Token);

        var error = await Assert.ThrowsAsync<RpcException>(() => call.ResponseStream.MoveNext(TestTimeout.Token));

        Assert.Equal(StatusCode.Unauthenticated, error.StatusCode);
    }

    [Fact]
    public async Task AWatchFromATamperedTokenIsInvalidArgumentOnSince()
    {
        var user = service.NewUser();
        using var call = Watch(service.A, user, since: "garbage");

        var error = await Assert.ThrowsAsync<RpcException>(() => call.ResponseStream.MoveNext(TestTimeout.Token));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.StartsWith("since:", error.Status.Detail, StringComparison.Ordinal);
    }
}
