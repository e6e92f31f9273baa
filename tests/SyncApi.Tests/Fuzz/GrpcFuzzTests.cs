using System.Net;
using CsCheck;
using Kobo.Sync.SyncApi.Tests.Resilience;
using Kobo.Sync.SyncApi.Tests.Support;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Thousands of generated gRPC calls, well-formed messages with odd values (<see cref="GrpcCalls"/>)
/// and broken protobuf and framing (<see cref="GrpcWire"/>), most with a good device token: never
/// INTERNAL or UNKNOWN, every other status with a message, a refused call stores nothing, and the
/// service's memory comes back. Alone, since the heap is measured.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class GrpcFuzzTests(FuzzedService service, ITestOutputHelper output) : IClassFixture<FuzzedService>
{
    [Fact]
    public Task EveryMethodAnswersGeneratedMessagesWithAPreciseStatus() =>
        RunAsync("grpc-messages", GrpcCalls.Calls(service.World, FuzzTokens.For(FuzzedService.User)), 1_200);

    [Fact]
    public Task BrokenProtobufAndFramingAreRefusedWithAPreciseStatus() =>
        RunAsync("grpc-wire", GrpcWire.Calls(service.World, FuzzTokens.For(FuzzedService.User)), 1_000);

    private async Task RunAsync(string name, Gen<GrpcCall> calls, int count)
    {
        using var h2c = new HttpClient(new SocketsHttpHandler { EnableMultipleHttp2Connections = true })
        {
            BaseAddress = service.Host.GrpcAddress,
            DefaultRequestVersion = HttpVersion.Version20,
            DefaultVersionPolicy = HttpVersionPolicy.RequestVersionExact,
            Timeout = Timeout.InfiniteTimeSpan,
        };
        count = FuzzRun.Scaled(count);
        var report = await service.FuzzAsync(count, (ledger, inputs) => FuzzRun.RunAsync(
            name, calls, inputs, call => call.ToString(), (call, cancel) => GrpcVerdicts.CheckAsync(h2c, call, ledger, cancel)));
        output.WriteLine(report.ToString());
        Assert.True(report.Clean, report.ToString());
    }
}
