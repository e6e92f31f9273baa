using System.Text;
using Google.Protobuf;
using Kobo.Sync.SyncApi.Grpc.V1;
using Kobo.Sync.SyncApi.Grpc.Wire;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Routing;

namespace Kobo.Sync.SyncApi.Tests.Grpc;

/// <summary>The generic binding against a real Kestrel, with test-only methods.</summary>
public sealed class GrpcWireTests : IAsyncLifetime
{
    private const string Service = "test.wire.v1.Probe";
    private readonly TaskCompletionSource<bool> _slowHandlerCancelled = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private WireTestServer _server = null!;

    public async Task InitializeAsync() => _server = await WireTestServer.StartAsync(MapProbe);

    public async Task DisposeAsync() => await _server.DisposeAsync();

    internal const string NonAsciiDetail = "Le délai a expiré: 100% ✓ 日本語\nline two";

    private void MapProbe(IEndpointRouteBuilder endpoints)
    {
        endpoints.MapGrpcUnary<ListUserHighlightsRequest, User>(Service, "Echo", ListUserHighlightsRequest.Parser, (request, call) =>
            Task.FromResult(new User
            {
                UserNo = request.UserNo,
                Name = request.Cursor.Length > 100 ? $"{request.Cursor.Length} chars" : request.Cursor,
                Country = call.GetMetadata("x-country") ?? string.Empty,
            }));
        endpoints.MapGrpcUnary<GetUserRequest, User>(Service, "Slow", GetUserRequest.Parser, async (_, call) =>
        {
            try
            {
                await Task.Delay(Timeout.Infinite, call.CancellationToken);
            }
            catch (OperationCanceledException)
            {
                _slowHandlerCancelled.TrySetResult(true);
                throw;
            }

            return new User();
        });
        endpoints.MapGrpcUnary<GetUserRequest, User>(Service, "Fail", GetUserRequest.Parser, (_, _) =>
            throw new RpcException(StatusCode.FailedPrecondition, NonAsciiDetail, [new("x-reason", "probe")]));
        endpoints.MapGrpcUnary<GetUserRequest, User>(Service, "Crash", GetUserRequest.Parser, (_, _) =>
            throw new InvalidOperationException("connection string Password=secret"));
        endpoints.MapGrpcUnknownMethods();
    }

    [Fact]
    public async Task AMessageAndMetadataMakeTheRoundTrip()
    {
        var response = await _server.Client.UnaryAsync(
            Service, "Echo", new ListUserHighlightsRequest { UserNo = 42, Cursor = "ünïcode" }, User.Parser,
            metadata: [new("x-country", "CA")], cancellationToken: TestTimeout.Token);

        Assert.Equal(42, response.UserNo);
        Assert.Equal("ünïcode", response.Name);
        Assert.Equal("CA", response.Country);
    }

    [Fact]
    public async Task ConcurrentCallsShareOneConnection()
    {
        var calls = Enumerable.Range(1, 64).Select(i => _server.Client.UnaryAsync(
            Service, "Echo", new ListUserHighlightsRequest { UserNo = i, Cursor = $"call {i}" }, User.Parser, cancellationToken: TestTimeout.Token));

        var responses = await Task.WhenAll(calls);

        Assert.Equal(Enumerable.Range(1, 64).Select(i => (long)i), responses.Select(r => r.UserNo));
        Assert.All(responses, r => Assert.Equal($"call {r.UserNo}", r.Name));
    }

    [Fact]
    public async Task ASuccessfulCallEndsWithStatusZeroInTheTrailers()
    {
        using var response = await RawGrpc.PostAsync(_server.Http, $"/{Service}/Echo", RawGrpc.Frame(new ListUserHighlightsRequest { UserNo = 1 }.ToByteArray()));

        Assert.Equal(System.Net.HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("application/grpc", response.Content.Headers.ContentType?.MediaType);
        Assert.False(response.Headers.Contains("grpc-status"));
        Assert.Equal("0", response.TrailingHeaders.GetValues("grpc-status").Single());
        Assert.Equal("identity", response.Headers.GetValues("grpc-accept-encoding").Single());
    }

    [Fact]
    public async Task AMessageOverFourMebibytesIsResourceExhausted()
    {
        var request = new ListUserHighlightsRequest { UserNo = 1, Cursor = new string('x', GrpcProtocol.DefaultMaxReceiveMessageSize) };

        var error = await Assert.ThrowsAsync<RpcException>(() =>
            _server.Client.UnaryAsync(Service, "Echo", request, User.Parser, cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.ResourceExhausted, error.Status);
    }

    [Fact]
    public async Task AMessageJustUnderTheLimitIsAccepted()
    {
        var request = new ListUserHighlightsRequest { UserNo = 1, Cursor = new string('x', GrpcProtocol.DefaultMaxReceiveMessageSize - 16) };

        var response = await _server.Client.UnaryAsync(Service, "Echo", request, User.Parser, cancellationToken: TestTimeout.Token);

        Assert.Equal($"{GrpcProtocol.DefaultMaxReceiveMessageSize - 16} chars", response.Name);
    }

    [Fact]
    public async Task ACompressedMessageIsUnimplementedAsATrailersOnlyResponse()
    {
        using var response = await RawGrpc.PostAsync(
            _server.Http, $"/{Service}/Echo", RawGrpc.Frame([1, 2, 3], compressedFlag: 1), headers: [new("grpc-encoding", "gzip")]);

        Assert.Equal(System.Net.HttpStatusCode.OK, response.StatusCode);
        Assert.Equal("12", response.Headers.GetValues("grpc-status").Single());
        Assert.Contains("not supported", Uri.UnescapeDataString(response.Headers.GetValues("grpc-message").Single()), StringComparison.OrdinalIgnoreCase);
        Assert.Equal("identity", response.Headers.GetValues("grpc-accept-encoding").Single());
    }

    [Fact]
    public async Task ACompressedFlagWithoutAnEncodingIsInternal()
    {
        using var response = await RawGrpc.PostAsync(_server.Http, $"/{Service}/Echo", RawGrpc.Frame([1, 2, 3], compressedFlag: 1));

        Assert.Equal("13", RawGrpc.Status(response));
    }

    [Fact]
    public async Task AnUnknownMethodIsUnimplementedAsATrailersOnlyResponse()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() =>
            _server.Client.UnaryAsync(Service, "NoSuchMethod", new GetUserRequest(), User.Parser, cancellationToken: TestTimeout.Token));
        using var raw = await RawGrpc.PostAsync(_server.Http, "/no.such.Service/Method", RawGrpc.Frame([]));

        Assert.Equal(StatusCode.Unimplemented, error.Status);
        Assert.Equal(System.Net.HttpStatusCode.OK, raw.StatusCode);
        Assert.Equal("12", raw.Headers.GetValues("grpc-status").Single());
        Assert.Empty(await raw.Content.ReadAsByteArrayAsync());
    }

    [Fact]
    public async Task AnExceededGrpcTimeoutCancelsTheHandlerAndAnswersDeadlineExceeded()
    {
        var started = System.Diagnostics.Stopwatch.StartNew();
        // No client-side deadline: the status must come from the server.
        using var response = await RawGrpc.PostAsync(
            _server.Http, $"/{Service}/Slow", RawGrpc.Frame(new GetUserRequest { UserNo = 1 }.ToByteArray()), headers: [new("grpc-timeout", "200m")]);

        Assert.Equal("4", RawGrpc.Status(response));
        Assert.True(await _slowHandlerCancelled.Task.WaitAsync(TimeSpan.FromSeconds(5)));
        Assert.InRange(started.Elapsed, TimeSpan.FromMilliseconds(150), TimeSpan.FromSeconds(5));
    }

    [Fact]
    public async Task TheClientSendsItsDeadlineAndReportsDeadlineExceeded()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() => _server.Client.UnaryAsync(
            Service, "Slow", new GetUserRequest { UserNo = 1 }, User.Parser,
            deadline: DateTimeOffset.UtcNow.AddMilliseconds(300), cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.DeadlineExceeded, error.Status);
        Assert.True(await _slowHandlerCancelled.Task.WaitAsync(TimeSpan.FromSeconds(5)));
    }

    [Fact]
    public async Task AClientCancellationCancelsTheHandler()
    {
        using var cancel = new CancellationTokenSource(TimeSpan.FromMilliseconds(200));

        var error = await Assert.ThrowsAsync<RpcException>(() => _server.Client.UnaryAsync(
            Service, "Slow", new GetUserRequest { UserNo = 1 }, User.Parser, cancellationToken: cancel.Token));

        Assert.Equal(StatusCode.Cancelled, error.Status);
        Assert.True(await _slowHandlerCancelled.Task.WaitAsync(TimeSpan.FromSeconds(5)));
    }

    [Theory]
    [InlineData("99999999H")]
    [InlineData("99999999n")]
    [InlineData("5S")]
    public async Task AnyValidTimeoutThatHasNotPassedLetsTheCallComplete(string timeout)
    {
        using var response = await RawGrpc.PostAsync(
            _server.Http, $"/{Service}/Echo", RawGrpc.Frame(new ListUserHighlightsRequest().ToByteArray()), headers: [new("grpc-timeout", timeout)]);

        Assert.Equal("0", RawGrpc.Status(response));
    }

    [Theory]
    [InlineData("1")]
    [InlineData("m")]
    [InlineData("123456789S")]
    [InlineData("10s")]
    public async Task AMalformedGrpcTimeoutIsRefused(string timeout)
    {
        using var response = await RawGrpc.PostAsync(
            _server.Http, $"/{Service}/Echo", RawGrpc.Frame(new ListUserHighlightsRequest().ToByteArray()), headers: [new("grpc-timeout", timeout)]);

        Assert.Equal("13", RawGrpc.Status(response));
    }

    [Theory]
    [InlineData("application/json")]
    [InlineData("text/plain")]
    [InlineData("application/grpcx")]
    public async Task ANonGrpcContentTypeIsHttp415(string contentType)
    {
        using var response = await RawGrpc.PostAsync(_server.Http, $"/{Service}/Echo", RawGrpc.Frame([]), contentType);

        Assert.Equal(System.Net.HttpStatusCode.UnsupportedMediaType, response.StatusCode);
        Assert.Null(RawGrpc.Status(response));
    }

    [Fact]
    public async Task TheProtoContentTypeSuffixIsAccepted()
    {
        using var response = await RawGrpc.PostAsync(
            _server.Http, $"/{Service}/Echo", RawGrpc.Frame(new ListUserHighlightsRequest().ToByteArray()), "application/grpc+proto");

        Assert.Equal("0", RawGrpc.Status(response));
    }

    [Fact]
    public async Task ANonPostRequestIsHttp405()
    {
        using var response = await _server.Http.GetAsync($"/{Service}/Echo", TestTimeout.Token);

        Assert.Equal(System.Net.HttpStatusCode.MethodNotAllowed, response.StatusCode);
    }

    [Fact]
    public async Task ANonAsciiStatusMessageIsPercentEncodedOnTheWireAndDecodedByTheClient()
    {
        using var raw = await RawGrpc.PostAsync(_server.Http, $"/{Service}/Fail", RawGrpc.Frame([]));
        var error = await Assert.ThrowsAsync<RpcException>(() =>
            _server.Client.UnaryAsync(Service, "Fail", new GetUserRequest(), User.Parser, cancellationToken: TestTimeout.Token));

        var onTheWire = raw.Headers.GetValues("grpc-message").Single();
        Assert.All(onTheWire, c => Assert.InRange(c, ' ', '~'));
        Assert.Contains("100%25", onTheWire, StringComparison.Ordinal);
        Assert.Equal(StatusCode.FailedPrecondition, error.Status);
        Assert.Equal(NonAsciiDetail, error.Detail);
        Assert.Contains(new KeyValuePair<string, string>("x-reason", "probe"), error.Trailers);
    }

    [Fact]
    public async Task AnUnhandledExceptionIsInternalWithAGenericMessage()
    {
        var error = await Assert.ThrowsAsync<RpcException>(() =>
            _server.Client.UnaryAsync(Service, "Crash", new GetUserRequest(), User.Parser, cancellationToken: TestTimeout.Token));

        Assert.Equal(StatusCode.Internal, error.Status);
        Assert.DoesNotContain("secret", error.Detail, StringComparison.Ordinal);
        Assert.DoesNotContain("InvalidOperation", error.Detail, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AUnaryCallWithoutARequestMessageIsUnimplemented()
    {
        using var response = await RawGrpc.PostAsync(_server.Http, $"/{Service}/Echo", []);

        Assert.Equal("12", RawGrpc.Status(response));
    }

    [Fact]
    public async Task AUnaryCallWithTwoRequestMessagesIsUnimplemented()
    {
        var one = RawGrpc.Frame(new ListUserHighlightsRequest { UserNo = 1 }.ToByteArray());

        using var response = await RawGrpc.PostAsync(_server.Http, $"/{Service}/Echo", [.. one, .. one]);

        Assert.Equal("12", RawGrpc.Status(response));
    }

    [Fact]
    public async Task ATruncatedMessageIsInternal()
    {
        var frame = RawGrpc.Frame(new ListUserHighlightsRequest { UserNo = 1, Cursor = "abc" }.ToByteArray());

        using var response = await RawGrpc.PostAsync(_server.Http, $"/{Service}/Echo", frame[..^2]);

        Assert.Equal("13", RawGrpc.Status(response));
    }

    [Fact]
    public async Task AMessageThatIsNotProtobufIsInternal()
    {
        // Field 1 as length-delimited with a length running past the end.
        using var response = await RawGrpc.PostAsync(_server.Http, $"/{Service}/Echo", RawGrpc.Frame([0x0A, 0x7F, 0x01]));

        Assert.Equal("13", RawGrpc.Status(response));
        Assert.Contains("parsed", Uri.UnescapeDataString(RawGrpc.Header(response, "grpc-message") ?? ""), StringComparison.Ordinal);
    }

    [Fact]
    public async Task AMessageSplitAcrossManyDataFramesIsReassembled()
    {
        var request = new ListUserHighlightsRequest { UserNo = 7, Cursor = new string('y', 200_000) };

        var response = await _server.Client.UnaryAsync(Service, "Echo", request, User.Parser, cancellationToken: TestTimeout.Token);

        Assert.Equal(7, response.UserNo);
        Assert.Equal("200000 chars", response.Name);
    }

    [Fact]
    public void StatusMessagesAreUtf8()
    {
        Assert.Equal(NonAsciiDetail, StatusMessageEncoding.Decode(StatusMessageEncoding.Encode(NonAsciiDetail)));
        Assert.Equal("caf%C3%A9", StatusMessageEncoding.Encode("café"));
        Assert.Equal(Encoding.UTF8.GetString(Encoding.UTF8.GetBytes("ok")), StatusMessageEncoding.Decode("ok"));
    }
}
