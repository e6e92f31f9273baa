using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>
/// The whole service over gRPC with text the store cannot keep and timestamps outside the accepted
/// range: a change is rejected alone (as over REST), a request is INVALID_ARGUMENT or UNAUTHENTICATED,
/// never INTERNAL.
/// </summary>
public sealed class SyncGrpcLimitsTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private const string Service = "kobo.sync.v1.SyncService";
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-1);
    private readonly SyncServiceDatabase _db;
    private readonly SyncGrpcTestHost _host;

    public SyncGrpcLimitsTests(SyncServiceDatabase db)
    {
        _db = db;
        _host = new SyncGrpcTestHost(db.ConnectionString);
    }

    public void Dispose() => _host.Dispose();

    private Task<PushChangesResponse> PushAsync(long user, params PushedChange[] changes) => _host.Client.PushAsync(user, changes);

    private async Task<List<HighlightChange>> PulledAsync(long user)
    {
        var page = await _host.Client.UnaryAsync(
            Service, "PullChanges", new PullChangesRequest { UserNo = user, PageSize = 1000 }, PullChangesResponse.Parser,
            metadata: As(user), cancellationToken: TestTimeout.Token);
        Assert.False(page.HasMore);
        return page.Changes.Where(c => c.ChangeCase == SyncChange.ChangeOneofCase.Highlight).Select(c => c.Highlight).OrderBy(h => h.Key, StringComparer.Ordinal).ToList();
    }

    private static PushedChange Upsert(string key, string text, Timestamp at, string? note = null)
    {
        var change = new PushedChange { Op = "upsert", BookNo = 7, Key = key, Text = text, Start = 10, Length = 42, Color = "yellow", ModifiedAt = at };
        if (note is not null)
        {
            change.Note = note;
        }

        return change;
    }

    [Fact]
    public async Task ATextOrNoteHoldingNulIsRejectedAloneAndTheRestOfTheBatchLands()
    {
        var user = _db.NewUser();
        var at = Timestamp.FromDateTimeOffset(T0);

        var pushed = await PushAsync(user,
            Upsert("before", "fine", at), Upsert("nul-text", "a\0b", at), Upsert("nul-note", "fine", at, note: "x\0"), Upsert("after", "fine", at, note: "a note"));

        Assert.Equal(["applied", "rejected", "rejected", "applied"], pushed.Results.Select(r => r.Status));
        Assert.StartsWith("text:", pushed.Results[1].Reason, StringComparison.Ordinal);
        Assert.Contains("U+0000", pushed.Results[1].Reason, StringComparison.Ordinal);
        Assert.StartsWith("note:", pushed.Results[2].Reason, StringComparison.Ordinal);
        var pulled = await PulledAsync(user);
        Assert.Equal(["after", "before"], pulled.Select(h => h.Key));
        Assert.Equal("a note", pulled[0].Note);
    }

    [Theory]
    [InlineData(253_402_300_800L, 0, "9999-12-31T23:59:59.999999Z")] // 10000-01-01T00:00:00Z
    [InlineData(long.MaxValue, 0, "9999-12-31T23:59:59.999999Z")]
    [InlineData(-62_135_596_800L, 0, "1970-01-01T00:00:00Z")] // 0001-01-01T00:00:00Z, PostgreSQL's -infinity to Npgsql
    [InlineData(-1L, 999_999_999, "1970-01-01T00:00:00Z")]
    [InlineData(1_700_000_000L, 1_000_000_000, "nanos")]
    [InlineData(1_700_000_000L, -1, "nanos")]
    public async Task AModifiedAtOutsideTheRangeIsRejectedAloneNotInternal(long seconds, int nanos, string hint)
    {
        var user = _db.NewUser();

        var pushed = await PushAsync(user,
            Upsert("bad", "t", new Timestamp { Seconds = seconds, Nanos = nanos }), Upsert("good", "t", Timestamp.FromDateTimeOffset(T0)));

        Assert.Equal(["rejected", "applied"], pushed.Results.Select(r => r.Status));
        Assert.StartsWith("modifiedAt:", pushed.Results[0].Reason, StringComparison.Ordinal);
        Assert.Contains(hint, pushed.Results[0].Reason, StringComparison.Ordinal);
        Assert.Equal(["good"], (await PulledAsync(user)).Select(h => h.Key));
    }

    [Fact]
    public async Task RevokingADeviceIdWithAControlCharacterIsInvalidArgument()
    {
        var user = _db.NewUser();

        var error = await Assert.ThrowsAsync<RpcException>(() => _host.Client.UnaryAsync(
            Service, "RevokeDevice", new RevokeDeviceRequest { UserNo = user, DeviceId = "lost\0" }, RevokeDeviceResponse.Parser,
            metadata: As(user), cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.StartsWith("deviceId:", error.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ATokenWhoseDeviceIdHoldsNulIsUnauthenticatedNotInternal()
    {
        var user = _db.NewUser();

        var error = await Assert.ThrowsAsync<RpcException>(() => _host.Client.UnaryAsync(
            Service, "PullChanges", new PullChangesRequest { UserNo = user }, PullChangesResponse.Parser,
            metadata: [new("authorization", $"Bearer {TestTokens.For(user, "kobo\0libra")}")], cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.Unauthenticated, error.StatusCode);
        Assert.Contains("did", error.Status.Detail, StringComparison.Ordinal);
    }
}
