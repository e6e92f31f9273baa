using CsCheck;
using Kobo.Sync.SyncApi.Tests.Resilience;
using Kobo.Sync.SyncApi.Tests.Support;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Fuzz;

/// <summary>
/// Thousands of generated REST requests (<see cref="RestCalls"/>, <see cref="PushBodies"/>,
/// <see cref="FuzzTokens"/>), most with a good device token so they reach the handlers: none gets a
/// server error, every refusal is a problem+json with a detail, a refused request stores nothing, and
/// the service's memory comes back. Alone, since the heap is measured.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class RestFuzzTests(FuzzedService service, ITestOutputHelper output) : IClassFixture<FuzzedService>
{
    [Fact]
    public Task TheReadsAnswerEveryGeneratedRequestWithoutAServerError() =>
        RunAsync("rest-reads", RestCalls.Reads(service.World, FuzzTokens.For(FuzzedService.User)), 1_200);

    [Fact]
    public Task PushingGeneratedBodiesNeverFailsTheServerAndStoresOnlyWhatItAccepted() =>
        RunAsync("rest-push", RestCalls.Pushes(FuzzTokens.For(FuzzedService.User)), 1_200);

    [Fact]
    public Task PullingWithGeneratedTokensAndRevokingGeneratedDevicesNeverFailsTheServer() =>
        RunAsync("rest-sync", RestCalls.Sync(service.World, FuzzTokens.For(FuzzedService.User)), 800);

    [Fact]
    public async Task TheKoboDeviceProtocolAnswersEveryGeneratedRequestWithoutAServerError()
    {
        var world = await KoboWorld.CreateAsync(service.Host, service.World.SyncTokens);
        await RunAsync("rest-kobo", KoboCalls.Any(world), 1_000);
    }

    [Fact]
    public async Task TheKoreaderProgressSyncFrontAnswersEveryGeneratedRequestWithoutAServerError()
    {
        var world = await KoreaderWorld.CreateAsync(service.Host, service.DataSource);
        await RunAsync("rest-koreader", KoreaderCalls.Any(world), 800);
    }

    [Fact]
    public Task ReadingAndPuttingReadingStatesWithGeneratedBodiesNeverFailsTheServerAndStoresOnlyWhatItAccepted() =>
        RunAsync("rest-reading-state", RestCalls.ReadingStates(FuzzTokens.For(FuzzedService.User)), 800);

    [Fact]
    public Task ListingReadingAndPushingCollectionsWithGeneratedInputNeverFailsTheServer() =>
        RunAsync("rest-collections", RestCalls.Collections(FuzzTokens.For(FuzzedService.User)), 800);

    private async Task RunAsync(string name, Gen<RestCall> calls, int count)
    {
        using var rest = new HttpClient(new SocketsHttpHandler { MaxConnectionsPerServer = 8, AllowAutoRedirect = false })
        {
            BaseAddress = service.Host.RestAddress,
            Timeout = Timeout.InfiniteTimeSpan,
        };
        count = FuzzRun.Scaled(count);
        var report = await service.FuzzAsync(count, (ledger, inputs) => FuzzRun.RunAsync(
            name, calls, inputs, call => call.ToString(), (call, cancel) => RestVerdicts.CheckAsync(rest, call, ledger, cancel)));
        output.WriteLine(report.ToString());
        Assert.True(report.Clean, report.ToString());
    }
}
