using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>ListDevices and RevokeDevice of the whole service on real listeners and a real PostgreSQL, with at most 3 devices per user.</summary>
public sealed class SyncGrpcDevicesTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private const string Service = "kobo.sync.v1.SyncService";
    private readonly SyncServiceDatabase _db;
    private readonly SyncGrpcTestHost _host;

    public SyncGrpcDevicesTests(SyncServiceDatabase db)
    {
        _db = db;
        _host = new SyncGrpcTestHost(db.ConnectionString, settings: new Dictionary<string, string?> { ["Sync:MaxDevicesPerUser"] = "3" });
    }

    public void Dispose() => _host.Dispose();

    private static KeyValuePair<string, string>[] As(long user, string device) => [new("authorization", $"Bearer {TestTokens.For(user, device)}")];

    private Task<PullChangesResponse> PullAsync(long user, string device) =>
        _host.Client.UnaryAsync(
            Service, "PullChanges", new PullChangesRequest { UserNo = user }, PullChangesResponse.Parser,
            metadata: As(user, device), cancellationToken: TestTimeout.Token);

    private Task<RevokeDeviceResponse> RevokeAsync(long user, string device, string by = "owner") =>
        _host.Client.UnaryAsync(
            Service, "RevokeDevice", new RevokeDeviceRequest { UserNo = user, DeviceId = device }, RevokeDeviceResponse.Parser,
            metadata: As(user, by), cancellationToken: TestTimeout.Token);

    private Task<ListDevicesResponse> ListAsync(long user, int pageSize = 0, string cursor = "") =>
        _host.Client.UnaryAsync(
            Service, "ListDevices", new ListDevicesRequest { UserNo = user, PageSize = pageSize, Cursor = cursor }, ListDevicesResponse.Parser,
            metadata: As(user, "owner"), cancellationToken: TestTimeout.Token);

    [Fact]
    public async Task TheDeviceListComesInPagesWithANextCursorThatIsEmptyOnTheLastPage()
    {
        var user = _db.NewUser();
        foreach (var device in new[] { "a", "b", "owner" })
        {
            await PullAsync(user, device);
        }

        var first = await ListAsync(user, pageSize: 2);
        var second = await ListAsync(user, pageSize: 2, cursor: first.NextCursor);
        var whole = await ListAsync(user);

        Assert.Equal(["owner", "b"], first.Devices.Select(d => d.DeviceId));
        Assert.NotEmpty(first.NextCursor);
        Assert.Equal(["a"], second.Devices.Select(d => d.DeviceId));
        Assert.Empty(second.NextCursor);
        Assert.Equal(["owner", "b", "a"], whole.Devices.Select(d => d.DeviceId));
        Assert.Empty(whole.NextCursor);
    }

    [Fact]
    public async Task ABadPageSizeOrATamperedCursorIsInvalidArgumentNamingTheField()
    {
        var user = _db.NewUser();
        await PullAsync(user, "a");
        await PullAsync(user, "owner");
        var cursor = (await ListAsync(user, pageSize: 1)).NextCursor;

        var pageSize = await Assert.ThrowsAsync<RpcException>(() => ListAsync(user, pageSize: 101));
        var tampered = await Assert.ThrowsAsync<RpcException>(() => ListAsync(user, cursor: "x" + cursor));

        Assert.Equal((StatusCode.InvalidArgument, StatusCode.InvalidArgument), (pageSize.StatusCode, tampered.StatusCode));
        Assert.StartsWith("pageSize:", pageSize.Status.Detail, StringComparison.Ordinal);
        Assert.StartsWith("cursor:", tampered.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RevokingADeviceTheServiceHasNeverSeenPullIsNotFoundAndStoresNothing()
    {
        var user = _db.NewUser();
        await PullAsync(user, "owner");

        var error = await Assert.ThrowsAsync<RpcException>(() => RevokeAsync(user, "made-up"));

        Assert.Equal(StatusCode.NotFound, error.StatusCode);
        Assert.Equal(["owner"], await _db.DeviceIdsAsync(user));
    }

    [Fact]
    public async Task RevokingOneDeviceMoreThanTheLimitLeavesRevokedIsFailedPrecondition()
    {
        var user = _db.NewUser();
        foreach (var device in new[] { "a", "b", "owner" })
        {
            await PullAsync(user, device);
        }

        await RevokeAsync(user, "a");
        await RevokeAsync(user, "b");
        var error = await Assert.ThrowsAsync<RpcException>(() => RevokeAsync(user, "owner"));
        await PullAsync(user, "new");

        Assert.Equal(StatusCode.FailedPrecondition, error.StatusCode);
        Assert.Contains("2 revoked devices", error.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(["a", "b", "new"], await _db.DeviceIdsAsync(user));
    }
}
