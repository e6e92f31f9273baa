using System.Net;
using Kobo.Sync.SyncApi.Grpc.V1;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>kobo.sync.v1.SyncService through the service's own composition, on real listeners.</summary>
public sealed class SyncGrpcServiceTests : IAsyncLifetime
{
    private const string Service = "kobo.sync.v1.SyncService";
    private SyncGrpcTestHost _host = null!;

    public async Task InitializeAsync() => _host = await SyncGrpcTestHost.StartAsync();

    public async Task DisposeAsync() => await _host.DisposeAsync();

    private Task<TResponse> CallAsync<TRequest, TResponse>(
        string method, TRequest request, Google.Protobuf.MessageParser<TResponse> parser, long? asUser = 1, DateTimeOffset? deadline = null)
        where TRequest : Google.Protobuf.IMessage
        where TResponse : Google.Protobuf.IMessage<TResponse> =>
        _host.Client.UnaryAsync(
            Service, method, request, parser,
            metadata: asUser is { } user ? [new("authorization", TestDeviceTokenHandler.TokenFor(user))] : null,
            deadline: deadline, cancellationToken: TestTimeout.Token);

    [Fact]
    public async Task GetUserReturnsTheCallersUser()
    {
        var user = await CallAsync("GetUser", new GetUserRequest { UserNo = 1 }, User.Parser);

        Assert.Equal(1, user.UserNo);
        Assert.Equal("Ada Lovelace", user.Name);
        Assert.Equal("GB", user.Country);
        Assert.Equal(FakeDeviceReadStore.Created, user.CreatedAt.ToDateTimeOffset());
    }

    [Fact]
    public async Task AnUnknownCountryIsEmpty()
    {
        var user = await CallAsync("GetUser", new GetUserRequest { UserNo = 2 }, User.Parser, asUser: 2);

        Assert.Equal(string.Empty, user.Country);
    }

    [Fact]
    public async Task WithoutATokenTheCallIsUnauthenticated()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CallAsync("GetUser", new GetUserRequest { UserNo = 1 }, User.Parser, asUser: null));

        Assert.Equal(StatusCode.Unauthenticated, error.Status);
        Assert.Equal("A bearer token is required in the authorization metadata.", error.Detail);
    }

    [Fact]
    public async Task ABadTokenIsUnauthenticatedWithTheHandlersReason()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => _host.Client.UnaryAsync(
            Service, "GetUser", new GetUserRequest { UserNo = 1 }, User.Parser,
            metadata: [new("authorization", "Bearer forged")], cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.Unauthenticated, error.Status);
        Assert.Equal(TestDeviceTokenHandler.InvalidTokenMessage, error.Detail);
    }

    [Fact]
    public async Task AnotherUsersDataIsPermissionDenied()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CallAsync("GetUser", new GetUserRequest { UserNo = 1 }, User.Parser, asUser: 2));

        Assert.Equal(StatusCode.PermissionDenied, error.Status);
    }

    [Fact]
    public async Task AUserThatDoesNotExistIsNotFound()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() =>
            CallAsync("ListUserHighlights", new ListUserHighlightsRequest { UserNo = 3 }, HighlightPage.Parser, asUser: 3));

        Assert.Equal(StatusCode.NotFound, error.Status);
    }

    [Fact]
    public async Task AnInvalidUserNumberIsInvalidArgumentNamingTheField()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CallAsync("GetUser", new GetUserRequest { UserNo = 0 }, User.Parser));

        Assert.Equal(StatusCode.InvalidArgument, error.Status);
        Assert.StartsWith("userNo:", error.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ATooLargePageSizeIsInvalidArgument()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() =>
            CallAsync("ListUserHighlights", new ListUserHighlightsRequest { UserNo = 1, PageSize = 101 }, HighlightPage.Parser));

        Assert.Equal(StatusCode.InvalidArgument, error.Status);
        Assert.StartsWith("pageSize:", error.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AForgedCursorIsInvalidArgument()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() =>
            CallAsync("ListUserHighlights", new ListUserHighlightsRequest { UserNo = 1, Cursor = "abc.def" }, HighlightPage.Parser));

        Assert.Equal(StatusCode.InvalidArgument, error.Status);
        Assert.StartsWith("cursor:", error.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task PageSizeZeroMeansTheDefaultAndCursorsWalkEveryPage()
    {
        var first = await CallAsync("ListUserHighlights", new ListUserHighlightsRequest { UserNo = 1 }, HighlightPage.Parser);
        var second = await CallAsync(
            "ListUserHighlights", new ListUserHighlightsRequest { UserNo = 1, Cursor = first.NextCursor }, HighlightPage.Parser);

        Assert.Equal(10, first.Items.Count);
        Assert.NotEmpty(first.NextCursor);
        Assert.Equal(5, second.Items.Count);
        Assert.Equal(string.Empty, second.NextCursor);
        Assert.Equal(15, first.Items.Concat(second.Items).Select(h => h.Id).Distinct().Count());
    }

    [Fact]
    public async Task BookHighlightsCarryEveryFieldAndAnAbsentNoteStaysAbsent()
    {
        var page = await CallAsync(
            "ListBookHighlights", new ListBookHighlightsRequest { UserNo = 1, BookNo = 10, PageSize = 2 }, HighlightPage.Parser);

        Assert.Equal(2, page.Items.Count);
        var first = page.Items[0];
        Assert.Equal(10, first.BookNo);
        Assert.Equal("Highlighted text 1 in book 10", first.Text);
        Assert.Equal(100, first.Start);
        Assert.Equal(42, first.Length);
        Assert.Equal("yellow", first.Color);
        Assert.True(first.HasNote);
        Assert.Equal("first note", first.Note);
        Assert.Equal(FakeDeviceReadStore.Created.AddMinutes(1), first.CreatedAt.ToDateTimeOffset());
        Assert.Equal(FakeDeviceReadStore.Created.AddMinutes(2), first.ModifiedAt.ToDateTimeOffset());
        Assert.False(page.Items[1].HasNote);
    }

    [Fact]
    public async Task AnInvalidBookNumberIsInvalidArgument()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() =>
            CallAsync("ListBookHighlights", new ListBookHighlightsRequest { UserNo = 1, BookNo = -5 }, HighlightPage.Parser));

        Assert.Equal(StatusCode.InvalidArgument, error.Status);
        Assert.StartsWith("bookNo:", error.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheDeadlineCancelsTheStoreCallAndAnswersDeadlineExceeded()
    {
        using var response = await RawGrpc.PostAsync(
            _host.Http, $"/{Service}/GetUser",
            RawGrpc.Frame(Google.Protobuf.MessageExtensions.ToByteArray(new GetUserRequest { UserNo = FakeDeviceReadStore.SlowUser })),
            headers: [new("grpc-timeout", "300m"), new("authorization", TestDeviceTokenHandler.TokenFor(FakeDeviceReadStore.SlowUser))]);

        Assert.Equal("4", RawGrpc.Status(response));
        Assert.True(await _host.Store.SlowCallCancelled.Task.WaitAsync(TimeSpan.FromSeconds(5)));
    }

    [Fact]
    public async Task AnUnknownMethodOfTheServiceIsUnimplemented()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CallAsync("DeleteEverything", new GetUserRequest { UserNo = 1 }, User.Parser));

        Assert.Equal(StatusCode.Unimplemented, error.Status);
    }

    [Fact]
    public async Task TheRestListenerDoesNotServeGrpcPaths()
    {
        using var rest = new HttpClient { BaseAddress = _host.RestAddress };
        using var content = new ByteArrayContent(RawGrpc.Frame([]));
        content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/grpc");

        using var response = await rest.PostAsync($"/{Service}/GetUser", content, TestTimeout.Token);

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.False(response.Headers.Contains("grpc-status"));
    }

    [Fact]
    public async Task AnUnknownPathOnTheGrpcListenerIsUnimplementedNotAProblemDocument()
    {
        using var response = await RawGrpc.PostAsync(_host.Http, "/v1/nothing-here", RawGrpc.Frame([]));

        Assert.Equal("12", RawGrpc.Status(response));
        Assert.Equal("application/grpc", response.Content.Headers.ContentType?.MediaType);
    }
}
