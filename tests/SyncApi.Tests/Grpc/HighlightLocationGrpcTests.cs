using Google.Protobuf.WellKnownTypes;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Grpc;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>A highlight's optional Kobo location over gRPC: the same rules as REST, field for field.</summary>
public sealed class HighlightLocationGrpcTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private const string Location = """{"span": {"startPath":"span#kobo\\.30\\.1","chapterProgress":0.88888888888888884}}""";
    private readonly SyncServiceDatabase _db;
    private readonly SyncGrpcTestHost _host;

    public HighlightLocationGrpcTests(SyncServiceDatabase db)
    {
        _db = db;
        _host = new SyncGrpcTestHost(db.ConnectionString);
    }

    public void Dispose() => _host.Dispose();

    private static PushedChange Upsert(string key, DateTimeOffset at, string? location)
    {
        var change = new PushedChange { Op = "upsert", BookNo = 7, Key = key, Text = "t", Start = 0, Length = 64, Color = "green", ModifiedAt = Timestamp.FromDateTimeOffset(at) };
        if (location is not null)
        {
            change.Location = location;
        }

        return change;
    }

    private Task<PullChangesResponse> PullAsync(long user) =>
        _host.Client.UnaryAsync(
            SyncGrpcService.ServiceName, "PullChanges", new PullChangesRequest { UserNo = user }, PullChangesResponse.Parser,
            metadata: As(user), cancellationToken: TestTimeout.Token);

    private Task<HighlightPage> ListBookAsync(long user) =>
        _host.Client.UnaryAsync(
            SyncGrpcService.ServiceName, "ListBookHighlights", new ListBookHighlightsRequest { UserNo = user, BookNo = 7 }, HighlightPage.Parser,
            metadata: As(user), cancellationToken: TestTimeout.Token);

    [Fact]
    public async Task ALocationIsPulledAndListedExactlyAsSentAndAbsentWhenNoneWasSent()
    {
        var user = _db.NewUser();
        var at = DateTimeOffset.UtcNow.AddMinutes(-5);

        var pushed = await _host.Client.PushAsync(user, Upsert("k", at, Location), Upsert("plain", at, null));
        var pulled = await PullAsync(user);
        var listed = await ListBookAsync(user);

        Assert.Equal(["applied", "applied"], pushed.Results.Select(r => r.Status));
        var withLocation = pulled.Changes.Single(c => c.Highlight.Key == "k").Highlight;
        Assert.Equal((true, Location), (withLocation.HasLocation, withLocation.Location));
        Assert.False(pulled.Changes.Single(c => c.Highlight.Key == "plain").Highlight.HasLocation);
        Assert.Equal(Location, listed.Items.Single(i => i.Id.EndsWith("/k", StringComparison.Ordinal)).Location);
        Assert.False(listed.Items.Single(i => i.Id.EndsWith("/plain", StringComparison.Ordinal)).HasLocation);
    }

    [Fact]
    public async Task AnOversizedLocationRejectsThatChangeAloneAndADeletionClearsIt()
    {
        var user = _db.NewUser();
        var at = DateTimeOffset.UtcNow.AddMinutes(-5);

        var pushed = await _host.Client.PushAsync(user, Upsert("long", at, new string('x', 4_097)), Upsert("k", at, Location));
        var deleted = await _host.Client.PushAsync(user, new PushedChange { Op = "delete", BookNo = 7, Key = "k", ModifiedAt = Timestamp.FromDateTimeOffset(at.AddSeconds(1)) });
        var pulled = await PullAsync(user);

        Assert.Equal(["rejected", "applied"], pushed.Results.Select(r => r.Status));
        Assert.StartsWith("location:", pushed.Results[0].Reason, StringComparison.Ordinal);
        Assert.Equal("applied", deleted.Results[0].Status);
        var tombstone = Assert.Single(pulled.Changes).Highlight;
        Assert.True(tombstone.Deleted);
        Assert.False(tombstone.HasLocation);
    }
}
