using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.Domain.Ids;
using Kobo.Sync.Domain.Library;
using Kobo.Sync.Domain.Requests;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.DependencyInjection;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>PushChanges and PullChanges of the whole service on real listeners and a real PostgreSQL.</summary>
public sealed class SyncGrpcChangesTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private const string Service = "kobo.sync.v1.SyncService";
    private readonly SyncServiceDatabase _db;
    private readonly SyncGrpcTestHost _host;

    public SyncGrpcChangesTests(SyncServiceDatabase db)
    {
        _db = db;
        _host = new SyncGrpcTestHost(db.ConnectionString);
    }

    public void Dispose() => _host.Dispose();

    private Task<PushChangesResponse> PushAsync(long user, params PushedChange[] changes) => _host.Client.PushAsync(user, changes);

    private Task<PullChangesResponse> PullAsync(long user, string since = "", int pageSize = 0) =>
        _host.Client.UnaryAsync(
            Service, "PullChanges", new PullChangesRequest { UserNo = user, Since = since, PageSize = pageSize }, PullChangesResponse.Parser,
            metadata: As(user), cancellationToken: TestTimeout.Token);

    private static PushedChange Upsert(string key, string text, DateTimeOffset at, string? note = null)
    {
        var change = new PushedChange { Op = "upsert", BookNo = 7, Key = key, Text = text, Start = 10, Length = 42, Color = "yellow", ModifiedAt = Timestamp.FromDateTimeOffset(at) };
        if (note is not null)
        {
            change.Note = note;
        }

        return change;
    }

    [Fact]
    public async Task PushedHighlightsAndTombstonesArePulledFieldForField()
    {
        var user = _db.NewUser();
        var at = DateTimeOffset.UtcNow.AddMinutes(-5);
        var pushed = await PushAsync(user, Upsert("a", "kept", at, note: "n"), Upsert("b", "gone", at));
        var deleted = await PushAsync(user, new PushedChange { Op = "delete", BookNo = 7, Key = "b", BaseVersion = pushed.Results[1].Version, ModifiedAt = Timestamp.FromDateTimeOffset(at.AddSeconds(1)) });

        var page = await PullAsync(user);

        Assert.Equal(["applied", "applied"], pushed.Results.Select(r => r.Status));
        Assert.Equal("applied", deleted.Results[0].Status);
        Assert.False(page.HasMore);
        var kept = page.Changes.Single(c => c.Highlight.Key == "a").Highlight;
        Assert.Equal(("kept", 10, 42, "yellow", "n", false), (kept.Text, kept.Start, kept.Length, kept.Color, kept.Note, kept.Deleted));
        Assert.Equal(at.ToUnixTimeMilliseconds(), kept.ModifiedAt.ToDateTimeOffset().ToUnixTimeMilliseconds());
        var tombstone = page.Changes.Single(c => c.Highlight.Key == "b").Highlight;
        Assert.True(tombstone.Deleted);
        Assert.False(tombstone.HasText);
        Assert.Equal(deleted.Results[0].Version, tombstone.Version);
    }

    [Fact]
    public async Task ABatchOfMoreThan500ChangesIsInvalidArgument()
    {
        var user = _db.NewUser();
        var at = DateTimeOffset.UtcNow;

        var error = await Assert.ThrowsAsync<RpcException>(() => PushAsync(user, Enumerable.Range(0, 501).Select(i => Upsert("k" + i, "t", at)).ToArray()));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.StartsWith("changes:", error.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task APushWithTheDevicesTokenAnswersTheTokenToPullWithAndATamperedOneStoresNothing()
    {
        var user = _db.NewUser();
        var token = (await PullAsync(user)).SyncToken;
        Assert.Equal(string.Empty, (await PushAsync(user, Upsert("k1", "no token", DateTimeOffset.UtcNow))).SyncToken);

        var pushed = await _host.Client.PushAsync(user, token, Upsert("k2", "with a token", DateTimeOffset.UtcNow));
        Assert.NotEqual(string.Empty, pushed.SyncToken);
        Assert.NotEqual(token, pushed.SyncToken);
        Assert.Equal(2, (await PullAsync(user, pushed.SyncToken)).Changes.Count);

        var error = await Assert.ThrowsAsync<RpcException>(() => _host.Client.PushAsync(user, "x" + token, Upsert("k3", "refused", DateTimeOffset.UtcNow)));
        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.StartsWith("since:", error.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(2, (await PullAsync(user)).Changes.Count);
    }

    [Fact]
    public async Task ATamperedSyncTokenIsInvalidArgument()
    {
        var user = _db.NewUser();
        var token = (await PullAsync(user)).SyncToken;

        var error = await Assert.ThrowsAsync<RpcException>(() => PullAsync(user, "x" + token));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.StartsWith("since:", error.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AKoboLibraryTokenOfTheSameUserIsInvalidArgumentAndTheFeedsOwnTokenStillWorks()
    {
        var user = _db.NewUser();
        var library = await _host.Services.GetRequiredService<LibrarySync>().PullAsync(new DeviceCaller(new UserNo(user), "kobo"), null, TestTimeout.Token);
        var feedToken = (await PullAsync(user)).SyncToken;

        foreach (var since in new[] { library.SyncToken, library.SyncToken[LibrarySync.TokenPrefix.Length..] })
        {
            var error = await Assert.ThrowsAsync<RpcException>(() => PullAsync(user, since));

            Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
            Assert.StartsWith("since:", error.Status.Detail, StringComparison.Ordinal);
        }

        Assert.Empty((await PullAsync(user, feedToken)).Changes);
    }

    [Fact]
    public async Task ARevokedDeviceIsUnauthenticatedAtOnceAndListedAsRevoked()
    {
        var user = _db.NewUser();
        KeyValuePair<string, string>[] lost = [new("authorization", $"Bearer {TestTokens.For(user, "lost")}")];
        Task<PullChangesResponse> PullAsLost() => _host.Client.UnaryAsync(
            Service, "PullChanges", new PullChangesRequest { UserNo = user }, PullChangesResponse.Parser, metadata: lost, cancellationToken: TestTimeout.Token);
        await PullAsLost();

        await _host.Client.UnaryAsync(
            Service, "RevokeDevice", new RevokeDeviceRequest { UserNo = user, DeviceId = "lost" }, RevokeDeviceResponse.Parser,
            metadata: As(user), cancellationToken: TestTimeout.Token);

        var error = await Assert.ThrowsAsync<RpcException>(PullAsLost);
        Assert.Equal(StatusCode.Unauthenticated, error.StatusCode);
        var list = await _host.Client.UnaryAsync(
            Service, "ListDevices", new ListDevicesRequest { UserNo = user }, ListDevicesResponse.Parser,
            metadata: As(user), cancellationToken: TestTimeout.Token);
        var device = list.Devices.Single(d => d.DeviceId == "lost");
        Assert.NotNull(device.RevokedAt);
        Assert.NotNull(device.LastSyncAt);
    }
}
