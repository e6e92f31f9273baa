using System.Net;
using Kobo.Sync.SyncApi.Tests.Support;
using Microsoft.Extensions.Options;

namespace Kobo.Sync.SyncApi.Tests.Infrastructure.Hosting;

public sealed class EndpointsConfigurationTests
{
    [Fact]
    public void ABadListenAddressFailsTheStartNamingTheKey()
    {
        using var factory = new SyncApiFactory(new Dictionary<string, string?> { ["Endpoints:Grpc"] = "https://127.0.0.1:5081" });

        var failure = Assert.Throws<OptionsValidationException>(() => factory.CreateClient());

        Assert.Contains("Endpoints:Grpc", failure.Message, StringComparison.Ordinal);
        Assert.Contains("must use http://", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void AShortCursorKeyFailsTheStartNamingTheKey()
    {
        using var factory = new SyncApiFactory(new Dictionary<string, string?> { ["Paging:CursorKey"] = "too-short" });

        var failure = Assert.Throws<OptionsValidationException>(() => factory.CreateClient());

        Assert.Contains("Paging:CursorKey must be at least 32 bytes", failure.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("1000")]
    [InlineData("0")]
    [InlineData("100000000")]
    public void APageByteBudgetOutOfRangeFailsTheStartNamingTheKey(string value)
    {
        using var factory = new SyncApiFactory(new Dictionary<string, string?> { ["Paging:MaxPageBytes"] = value });

        var failure = Assert.Throws<OptionsValidationException>(() => factory.CreateClient());

        Assert.Contains("Paging:MaxPageBytes must be from 16384 to 67108864", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void RestAndGrpcOnOnePortFailsTheStart()
    {
        using var factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = "http://127.0.0.1:6000",
            ["Endpoints:Grpc"] = "http://127.0.0.1:6000",
        });

        var failure = Assert.Throws<OptionsValidationException>(() => factory.CreateClient());

        Assert.Contains("must use different ports", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task RestListensForHttp1AndGrpcForCleartextHttp2OnTheirOwnPortsEachWithItsOwnSurface()
    {
        var (restPort, grpcPort) = (LoopbackPorts.Free(), LoopbackPorts.Free());
        using var factory = new SyncApiFactory(new Dictionary<string, string?>
        {
            ["Endpoints:Rest"] = $"http://127.0.0.1:{restPort}",
            ["Endpoints:Grpc"] = $"http://127.0.0.1:{grpcPort}",
        });
        factory.UseKestrel();
        factory.StartServer();
        using var http = new HttpClient();

        using var rest = await http.SendAsync(Get(restPort, HttpVersion.Version11), TestTimeout.Token);
        using var grpc = await http.SendAsync(Get(grpcPort, HttpVersion.Version20), TestTimeout.Token);

        Assert.Equal((HttpStatusCode.OK, HttpVersion.Version11), (rest.StatusCode, rest.Version));
        // The gRPC listener speaks HTTP/2 but serves gRPC only: the REST liveness path is not there.
        Assert.Equal((HttpStatusCode.NotFound, HttpVersion.Version20), (grpc.StatusCode, grpc.Version));

        // Kestrel turns HTTP/1.1 away from an HTTP/2-only listener.
        using var wrongProtocol = await http.SendAsync(Get(grpcPort, HttpVersion.Version11), TestTimeout.Token);
        Assert.Equal(HttpStatusCode.BadRequest, wrongProtocol.StatusCode);
    }

    private static HttpRequestMessage Get(int port, Version version) =>
        new(HttpMethod.Get, $"http://127.0.0.1:{port}/healthz/live")
        {
            Version = version,
            VersionPolicy = HttpVersionPolicy.RequestVersionExact,
        };
}
