using System.Net;
using Grpc.Core;
using Kobo.Sync.Contracts.Grpc.V1;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using static Kobo.Sync.SyncApi.Tests.Grpc.Support.SyncGrpcTestHost;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>
/// kobo.sync.v1.SyncService of the whole service on real listeners, reading the shared demo database
/// with real device tokens; expectations come from the database's own rows.
/// </summary>
public sealed class SyncGrpcServiceTests(SyncGrpcTestHost host) : IClassFixture<SyncGrpcTestHost>
{
    private const string Service = "kobo.sync.v1.SyncService";
    private const long Missing = 987_654_321;

    private static Task<DemoDatabase> Database => SharedDemoDatabase.GetAsync();

    private Task<TResponse> CallAsync<TRequest, TResponse>(
        string method, TRequest request, Google.Protobuf.MessageParser<TResponse> parser, long? asUser = 12)
        where TRequest : class, Google.Protobuf.IMessage
        where TResponse : class, Google.Protobuf.IMessage<TResponse> =>
        host.Client.UnaryAsync(
            Service, method, request, parser, metadata: asUser is { } user ? As(user) : null, cancellationToken: TestTimeout.Token);

    private async Task<List<Highlight>> WalkAsync(long user, long? book = null, int pageSize = 0)
    {
        var items = new List<Highlight>();
        var cursor = string.Empty;
        do
        {
            var page = book is { } b
                ? await CallAsync("ListBookHighlights", new ListBookHighlightsRequest { UserNo = user, BookNo = b, PageSize = pageSize, Cursor = cursor }, HighlightPage.Parser, user)
                : await CallAsync("ListUserHighlights", new ListUserHighlightsRequest { UserNo = user, PageSize = pageSize, Cursor = cursor }, HighlightPage.Parser, user);
            Assert.InRange(page.Items.Count, 0, pageSize == 0 ? 10 : pageSize);
            items.AddRange(page.Items);
            cursor = page.NextCursor;
        }
        while (cursor.Length > 0);

        return items;
    }

    [Fact]
    public async Task GetUserReturnsTheCallersUserAsStored()
    {
        var stored = await (await Database).UserAsync(12);

        var user = await CallAsync("GetUser", new GetUserRequest { UserNo = 12 }, User.Parser);

        Assert.Equal(12, user.UserNo);
        Assert.Equal(stored.Name, user.Name);
        Assert.Equal(stored.Country ?? string.Empty, user.Country);
        Assert.Equal(stored.CreatedAt, user.CreatedAt.ToDateTimeOffset());
    }

    [Fact]
    public async Task AnUnknownCountryIsEmpty()
    {
        var userNo = await (await Database).CountAsync("SELECT min(user_no) FROM users WHERE country IS NULL");

        var user = await CallAsync("GetUser", new GetUserRequest { UserNo = userNo }, User.Parser, asUser: userNo);

        Assert.Equal(string.Empty, user.Country);
    }

    [Fact]
    public async Task WithoutATokenTheCallIsUnauthenticated()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CallAsync("GetUser", new GetUserRequest { UserNo = 12 }, User.Parser, asUser: null));

        Assert.Equal(StatusCode.Unauthenticated, error.StatusCode);
        Assert.Equal("A bearer token is required in the authorization metadata.", error.Status.Detail);
    }

    [Theory]
    [InlineData("not-a-jwt")]
    [InlineData("wrong-key")]
    [InlineData("expired")]
    [InlineData("issued-in-the-future")]
    [InlineData("a-claim-named-twice")]
    [InlineData("a-long-token-naming-a-claim-twice")]
    [InlineData("living-longer-than-the-service-accepts")]
    public async Task ABadTokenIsUnauthenticatedWithTheHandlersReason(string kind)
    {
        var token = kind switch
        {
            "a-claim-named-twice" => TestTokens.SignedRaw(TestTokens.PayloadWith(",\"sub\":\"12\"")),
            "a-long-token-naming-a-claim-twice" => TestTokens.SignedRaw(TestTokens.PayloadWith(TestTokens.PaddingClaim + ",\"sub\":\"12\"")),
            "issued-in-the-future" => TestTokens.For(12, issuedAt: DateTime.UtcNow.AddMinutes(10)),
            "wrong-key" => TestTokens.For(12, key: "some-other-signing-key-of-at-least-32-bytes"),
            "expired" => TestTokens.For(12, expires: DateTime.UtcNow.AddHours(-2)),
            "living-longer-than-the-service-accepts" => TestTokens.For(12, expires: DateTime.UtcNow.AddHours(721)),
            _ => kind,
        };

        var error = await Assert.ThrowsAsync<RpcException>(() => host.Client.UnaryAsync(
            Service, "GetUser", new GetUserRequest { UserNo = 12 }, User.Parser,
            metadata: [new("authorization", $"Bearer {token}")], cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.Unauthenticated, error.StatusCode);
        Assert.False(string.IsNullOrWhiteSpace(error.Status.Detail));
        Assert.NotEqual("A bearer token is required in the authorization metadata.", error.Status.Detail);
    }

    [Fact]
    public async Task AnotherUsersDataIsPermissionDeniedEvenWithALookAlikeNumber()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CallAsync("GetUser", new GetUserRequest { UserNo = 123 }, User.Parser, asUser: 12));

        Assert.Equal(StatusCode.PermissionDenied, error.StatusCode);
    }

    [Fact]
    public async Task AUserThatDoesNotExistIsNotFound()
    {
        Assert.Equal(0, await (await Database).CountAsync("SELECT count(*) FROM users WHERE user_no = $1", Missing));

        var user = await Assert.ThrowsAsync<RpcException>(() => CallAsync("GetUser", new GetUserRequest { UserNo = Missing }, User.Parser, Missing));
        var highlights = await Assert.ThrowsAsync<RpcException>(() =>
            CallAsync("ListUserHighlights", new ListUserHighlightsRequest { UserNo = Missing }, HighlightPage.Parser, Missing));

        Assert.Equal(StatusCode.NotFound, user.StatusCode);
        Assert.Equal(StatusCode.NotFound, highlights.StatusCode);
    }

    [Fact]
    public async Task AnInvalidUserNumberIsInvalidArgumentNamingTheField()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CallAsync("GetUser", new GetUserRequest { UserNo = 0 }, User.Parser));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.StartsWith("userNo:", error.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task ATooLargePageSizeIsInvalidArgument()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() =>
            CallAsync("ListUserHighlights", new ListUserHighlightsRequest { UserNo = 12, PageSize = 101 }, HighlightPage.Parser));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.StartsWith("pageSize:", error.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AForgedCursorIsInvalidArgument()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() =>
            CallAsync("ListUserHighlights", new ListUserHighlightsRequest { UserNo = 12, Cursor = "abc.def" }, HighlightPage.Parser));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.StartsWith("cursor:", error.Status.Detail, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(12, 123)]
    [InlineData(123, 12)]
    public async Task DefaultPagesWalkEveryHighlightOnceAndNeverThoseOfALookAlikeUser(long user, long lookAlike)
    {
        var stored = await (await Database).HighlightsAsync(user);

        var items = await WalkAsync(user);

        Assert.True(stored.Count > 10, $"user {user} holds {stored.Count} highlights, more than one default page");
        Assert.Equal(stored.Select(h => h.Id), items.Select(h => h.Id));
        Assert.All(items, h => Assert.StartsWith($"highlights/users{user}-", h.Id, StringComparison.Ordinal));
        Assert.DoesNotContain(items, h => h.Id.StartsWith($"highlights/users{lookAlike}-", StringComparison.Ordinal));
        Assert.Equal(stored.Count(h => h.Note is not null), items.Count(h => h.HasNote));
    }

    [Theory]
    [InlineData(12, 5)]
    [InlineData(12, 56)]
    [InlineData(123, 5)]
    [InlineData(123, 56)]
    public async Task BookHighlightsAreExactlyThatBooksNeverThoseOfALookAlikeBook(long user, long book)
    {
        var stored = await (await Database).HighlightsAsync(user, book);

        var items = await WalkAsync(user, book, pageSize: 2);

        Assert.NotEmpty(stored);
        Assert.Equal(stored.Select(h => h.Id), items.Select(h => h.Id));
        Assert.All(items, h => Assert.Equal(book, h.BookNo));
        Assert.All(items, h => Assert.StartsWith($"highlights/users{user}-ebooks/{book}/", h.Id, StringComparison.Ordinal));
    }

    [Fact]
    public async Task HighlightsCarryEveryStoredFieldAndAnAbsentNoteStaysAbsent()
    {
        var stored = await (await Database).HighlightsAsync(12);

        var items = await WalkAsync(12, pageSize: 100);

        Assert.Contains(stored, h => h.Note is null);
        Assert.Contains(stored, h => h.Note is not null);
        Assert.Equal(stored.Count, items.Count);
        foreach (var (expected, actual) in stored.Zip(items))
        {
            Assert.Equal(expected.Id, actual.Id);
            Assert.Equal(expected.BookNo, actual.BookNo);
            Assert.Equal(expected.Text, actual.Text);
            Assert.Equal(expected.Start, actual.Start);
            Assert.Equal(expected.Length, actual.Length);
            Assert.Equal(expected.Color, actual.Color);
            Assert.Equal(expected.Note is not null, actual.HasNote);
            Assert.Equal(expected.Note ?? string.Empty, actual.Note);
            Assert.Equal(expected.CreatedAt, actual.CreatedAt.ToDateTimeOffset());
            Assert.Equal(expected.ModifiedAt, actual.ModifiedAt.ToDateTimeOffset());
        }
    }

    [Fact]
    public async Task AnInvalidBookNumberIsInvalidArgument()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() =>
            CallAsync("ListBookHighlights", new ListBookHighlightsRequest { UserNo = 12, BookNo = -5 }, HighlightPage.Parser));

        Assert.Equal(StatusCode.InvalidArgument, error.StatusCode);
        Assert.StartsWith("bookNo:", error.Status.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnAlreadyExpiredDeadlineIsDeadlineExceeded()
    {
        using var response = await RawGrpc.PostAsync(
            host.Http, $"/{Service}/GetUser",
            RawGrpc.Frame(Google.Protobuf.MessageExtensions.ToByteArray(new GetUserRequest { UserNo = 12 })),
            // 1u, not 1n: Grpc.AspNetCore counts in 100 ns ticks, and a deadline that rounds to zero is no deadline.
            headers: [new("grpc-timeout", "1u"), .. As(12)]);

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("4", RawGrpc.Status(response));
    }

    [Theory]
    [InlineData(new byte[] { 0, 0, 0, 0, 1, 0x08 }, "not valid protobuf")] // a varint cut short
    [InlineData(new byte[] { 0, 0, 0, 0, 2, 0x0F, 0x01 }, "not valid protobuf")] // wire type 7 does not exist
    [InlineData(new byte[] { 0, 0, 0, 0, 2, 0x12, 0x02, 0xC3, 0x28 }, "not valid protobuf")] // a string that is not UTF-8
    [InlineData(new byte[] { 0, 0, 0, 0, 9, 0x08, 0x0C }, "Incomplete message")] // the length prefix lies
    [InlineData(new byte[] { 0, 0, 0, 0, 2, 0x08, 0x0C, 0, 0, 0, 0, 0 }, "Additional data")] // two messages for a unary call
    public async Task ARequestMessageThatCannotBeReadIsInvalidArgumentSayingWhy(byte[] body, string why)
    {
        using var response = await RawGrpc.PostAsync(host.Http, $"/{Service}/GetUser", body, headers: As(12));

        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("3", RawGrpc.Status(response));
        Assert.Contains(why, Uri.UnescapeDataString(RawGrpc.Header(response, "grpc-message") ?? string.Empty), StringComparison.Ordinal);
    }

    [Fact]
    public async Task AnUnknownMethodOfTheServiceIsUnimplemented()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => CallAsync("DeleteEverything", new GetUserRequest { UserNo = 12 }, User.Parser));

        Assert.Equal(StatusCode.Unimplemented, error.StatusCode);
    }

    [Fact]
    public async Task TheRestListenerDoesNotServeGrpcPaths()
    {
        using var rest = new HttpClient { BaseAddress = host.RestAddress };
        using var content = new ByteArrayContent(RawGrpc.Frame([]));
        content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/grpc");

        using var response = await rest.PostAsync($"/{Service}/GetUser", content, TestTimeout.Token);

        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
        Assert.False(response.Headers.Contains("grpc-status"));
    }

    [Fact]
    public async Task APostToARestReadOnTheRestListenerIsMethodNotAllowedNotSwallowedByTheGrpcCatchAll()
    {
        using var rest = new HttpClient { BaseAddress = host.RestAddress };

        using var response = await rest.PostAsync("/v1/users/12", new StringContent("{}"), TestTimeout.Token);

        Assert.Equal(HttpStatusCode.MethodNotAllowed, response.StatusCode);
        Assert.False(response.Headers.Contains("grpc-status"));
    }

    [Fact]
    public async Task ARestPathOnTheGrpcListenerIsUnimplemented()
    {
        using var response = await RawGrpc.PostAsync(host.Http, "/v1/users/12", RawGrpc.Frame([]));

        Assert.Equal("12", RawGrpc.Status(response));
    }

    [Fact]
    public async Task AnUnknownPathOnTheGrpcListenerIsUnimplementedNotAProblemDocument()
    {
        using var response = await RawGrpc.PostAsync(host.Http, "/v1/nothing-here", RawGrpc.Frame([]));

        Assert.Equal("12", RawGrpc.Status(response));
        Assert.Equal("application/grpc", response.Content.Headers.ContentType?.MediaType);
    }
}
