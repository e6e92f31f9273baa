using Google.Protobuf.WellKnownTypes;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Apis.Support;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>GetReadingState, PutReadingState and the readingState change of PullChanges on real listeners and a real PostgreSQL.</summary>
public sealed class SyncGrpcReadingStateTests : IClassFixture<SyncServiceDatabase>, IDisposable
{
    private const string Service = "kobo.sync.v1.SyncService";
    private static readonly DateTimeOffset T0 = DateTimeOffset.UtcNow.AddHours(-3);
    private readonly SyncServiceDatabase _db;
    private readonly SyncGrpcTestHost _host;

    public SyncGrpcReadingStateTests(SyncServiceDatabase db)
    {
        _db = db;
        _host = new SyncGrpcTestHost(db.ConnectionString);
    }

    public void Dispose() => _host.Dispose();

    private Task<PutReadingStateResponse> PutAsync(long user, long book, ReadingPosition? position = null, ReadingStatus? status = null, ReadingStatistics? statistics = null) =>
        _host.Client.UnaryAsync(
            Service, "PutReadingState", new PutReadingStateRequest { UserNo = user, BookNo = book, Position = position, Status = status, Statistics = statistics },
            PutReadingStateResponse.Parser, metadata: As(user), cancellationToken: TestTimeout.Token);

    private Task<ReadingState> GetAsync(long user, long book, long? asUser = null) =>
        _host.Client.UnaryAsync(
            Service, "GetReadingState", new GetReadingStateRequest { UserNo = user, BookNo = book }, ReadingState.Parser,
            metadata: As(asUser ?? user), cancellationToken: TestTimeout.Token);

    private Task<PullChangesResponse> PullAsync(long user, string since = "") =>
        _host.Client.UnaryAsync(
            Service, "PullChanges", new PullChangesRequest { UserNo = user, Since = since }, PullChangesResponse.Parser,
            metadata: As(user), cancellationToken: TestTimeout.Token);

    private static ReadingPosition Position(double percent, DateTimeOffset at, string? location = null)
    {
        var position = new ReadingPosition { Percent = percent, ModifiedAt = Timestamp.FromDateTimeOffset(at) };
        if (location is not null)
        {
            position.Location = location;
        }

        return position;
    }

    private static ReadingStatus Status(string value, DateTimeOffset at) => new() { Value = value, ModifiedAt = Timestamp.FromDateTimeOffset(at) };

    [Fact]
    public async Task APutThenAGetReturnsEveryGroupFieldForField()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 7);
        const string location = "{\"Value\":\"kobo.1.1\",\"Type\":\"KoboSpan\"} \ud83d\udcd6";

        var answer = await PutAsync(
            user, 7, Position(12.25, T0, location), Status("reading", T0.AddMinutes(1)),
            new ReadingStatistics { TimeSpentMinutes = 40, ModifiedAt = Timestamp.FromDateTimeOffset(T0.AddMinutes(2)) });
        var state = await GetAsync(user, 7);

        Assert.Equal(("applied", "applied", "applied"), (answer.PositionResult, answer.StatusResult, answer.StatisticsResult));
        Assert.Equal(answer.ReadingState, state);
        Assert.Equal((7L, 12.25, location, true), (state.BookNo, state.Position.Percent, state.Position.Location, state.Position.HasLocation));
        Assert.Equal(("reading", 40), (state.Status.Value, state.Statistics.TimeSpentMinutes));
        Assert.Equal(T0.AddMinutes(2).ToUnixTimeMilliseconds(), state.ModifiedAt.ToDateTimeOffset().ToUnixTimeMilliseconds());
    }

    [Fact]
    public async Task AnOwnedBookWithoutAStateHasNoGroups()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 7);

        var state = await GetAsync(user, 7);

        Assert.Equal(new ReadingState { BookNo = 7 }, state);
    }

    [Fact]
    public async Task AStaleDevicesPositionLosesAndTheAnswerCarriesTheNewerOne()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 7);
        await PutAsync(user, 7, Position(75, T0.AddHours(1), "newer"));

        var answer = await PutAsync(user, 7, Position(25, T0, "older"), Status("reading", T0));

        Assert.Equal(("conflict", "applied", string.Empty), (answer.PositionResult, answer.StatusResult, answer.StatisticsResult));
        Assert.Equal((75d, "newer"), (answer.ReadingState.Position.Percent, answer.ReadingState.Position.Location));
        Assert.Equal(75d, (await GetAsync(user, 7)).Position.Percent);
    }

    [Fact]
    public async Task AReadingStateChangeIsPulledOnceAsAReadingStateChange()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 7);
        var before = await PullAsync(user);

        await PutAsync(user, 7, status: Status("finished", T0));
        var page = await PullAsync(user, before.SyncToken);
        var again = await PullAsync(user, page.SyncToken);

        var change = Assert.Single(page.Changes);
        Assert.Equal(SyncChange.ChangeOneofCase.ReadingState, change.ChangeCase);
        Assert.Equal((7L, "finished"), (change.ReadingState.State.BookNo, change.ReadingState.State.Status.Value));
        Assert.Null(change.ReadingState.State.Position);
        Assert.Empty(again.Changes);
    }

    [Fact]
    public async Task AFormatTwoTokenStillPullsAndDeliversTheReadingStates()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 7);
        await PutAsync(user, 7, Position(5, T0));
        var caughtUp = await PullAsync(user);

        var page = await PullAsync(user, ReadingStateCalls.AsFormatTwo(caughtUp.SyncToken, user));

        Assert.Equal(SyncChange.ChangeOneofCase.ReadingState, Assert.Single(page.Changes).ChangeCase);
    }

    [Theory]
    [InlineData(double.NaN, "position.percent")]
    [InlineData(double.PositiveInfinity, "position.percent")]
    [InlineData(-0.5, "position.percent")]
    [InlineData(100.5, "position.percent")]
    public async Task ABadPercentIsInvalidArgumentNamingTheField(double percent, string field)
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 7);

        var error = await Assert.ThrowsAsync<RpcException>(() => PutAsync(user, 7, Position(percent, T0)));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.StartsWith(field + ": ", error.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task OtherBadFieldsAreInvalidArgumentNamingTheField()
    {
        var user = _db.NewUser();
        await _db.OwnAsync(user, 7);

        async Task<string> DetailAsync(Func<Task> call) => (await Assert.ThrowsAsync<RpcException>(call)).Status.Detail;

        Assert.StartsWith("body: ", await DetailAsync(() => PutAsync(user, 7)), StringComparison.Ordinal);
        Assert.StartsWith("status.value: ", await DetailAsync(() => PutAsync(user, 7, status: Status("Reading", T0))), StringComparison.Ordinal);
        Assert.StartsWith("status.modifiedAt: ", await DetailAsync(() => PutAsync(user, 7, status: new ReadingStatus { Value = "ready" })), StringComparison.Ordinal);
        Assert.StartsWith("position.modifiedAt: ", await DetailAsync(() => PutAsync(
            user, 7, new ReadingPosition { Percent = 1, ModifiedAt = new Timestamp { Seconds = 253_402_300_800 } })), StringComparison.Ordinal);
        Assert.StartsWith("position.location: ", await DetailAsync(() => PutAsync(user, 7, Position(1, T0, new string('x', 2_049)))), StringComparison.Ordinal);
        Assert.StartsWith("position.location: ", await DetailAsync(() => PutAsync(user, 7, Position(1, T0, "a\0b"))), StringComparison.Ordinal);
        Assert.StartsWith("statistics.timeSpentMinutes: ", await DetailAsync(() => PutAsync(
            user, 7, statistics: new ReadingStatistics { TimeSpentMinutes = -1, ModifiedAt = Timestamp.FromDateTimeOffset(T0) })), StringComparison.Ordinal);
        Assert.Equal(new ReadingState { BookNo = 7 }, await GetAsync(user, 7));
    }

    [Fact]
    public async Task ABookNotOwnedIsNotFoundAndAnotherUsersIsPermissionDenied()
    {
        var user = _db.NewUser();
        var other = _db.NewUser();
        await _db.OwnAsync(other, 7);

        var notOwned = await Assert.ThrowsAsync<RpcException>(() => PutAsync(user, 7, status: Status("ready", T0)));
        var foreign = await Assert.ThrowsAsync<RpcException>(() => GetAsync(other, 7, asUser: user));
        var badBook = await Assert.ThrowsAsync<RpcException>(() => GetAsync(user, 0));

        Assert.Equal(StatusCode.NotFound, notOwned.StatusCode);
        Assert.Contains("does not own book 7", notOwned.Status.Detail, StringComparison.Ordinal);
        Assert.Equal(StatusCode.PermissionDenied, foreign.StatusCode);
        Assert.Equal(StatusCode.InvalidArgument, badBook.StatusCode);
    }
}
