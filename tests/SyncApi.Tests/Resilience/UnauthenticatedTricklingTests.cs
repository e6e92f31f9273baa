using System.Diagnostics;
using Kobo.Sync.SyncApi.Tests.Grpc.Support;
using Kobo.Sync.SyncApi.Tests.Support;
using Xunit.Abstractions;
using static Kobo.Sync.SyncApi.Tests.Support.Faults.TricklingCalls;

namespace Kobo.Sync.SyncApi.Tests.Resilience;

/// <summary>
/// Hundreds of callers without a token announce a large gRPC message and trickle it: each is refused
/// before its body is read, so it holds no admission slot and no buffer, while the devices that send
/// whole requests keep being served at their usual speed (the service's default capacity).
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class UnauthenticatedTricklingTests(SyncGrpcTestHost host, ITestOutputHelper output) : IClassFixture<SyncGrpcTestHost>
{
    private const string Reset = "reset";

    [Fact]
    public async Task HundredsOfTricklingGrpcCallsWithoutATokenAreRefusedAtOnceAndDevicesKeepTheirSpeed()
    {
        await WarmAsync(host);
        using var attacker = NewH2cClient(host);
        using var stop = CancellationTokenSource.CreateLinkedTokenSource(TestTimeout.Token);
        // 300 callers, each opening a trickling call again a second after the last was refused.
        var refused = Enumerable.Range(0, 300).Select(_ => KeepTricklingAsync(attacker, stop.Token)).ToList();
        await Task.Delay(TimeSpan.FromMilliseconds(500), TestTimeout.Token);

        var devices = await DevicesMeanwhileAsync(host);
        stop.Cancel();
        var answers = (await Task.WhenAll(refused)).SelectMany(a => a).ToList();

        output.WriteLine($"{answers.Count} trickling calls without a token ({string.Join(", ", answers.GroupBy(a => a.GrpcStatus).Select(g => $"{g.Key}: {g.Count()}"))}), refused in p50 {Percentile(answers, 0.5):F0} ms, max {Percentile(answers, 1):F0} ms");
        Assert.True(answers.Count >= 600, $"only {answers.Count} calls were answered");
        Assert.All(answers, a => Assert.True(a.GrpcStatus is "16" || a.GrpcStatus!.StartsWith(Reset, StringComparison.Ordinal), a.ToString()));
        Assert.Contains(answers, a => a.GrpcStatus == "16");
        Assert.All(answers, a => Assert.True(a.Elapsed < TimeSpan.FromSeconds(2), $"refused after {a.Elapsed}"));
        AssertServedAsUsual(devices, output);
    }

    private static async Task<List<Trickled>> KeepTricklingAsync(HttpClient attacker, CancellationToken stop)
    {
        var answers = new List<Trickled>();
        while (!stop.IsCancellationRequested)
        {
            var clock = Stopwatch.StartNew();
            try
            {
                var answer = await TrickleGrpcAsync(attacker, token: null, stop);
                if (answer.HttpStatus != 0)
                {
                    answers.Add(answer);
                }
            }
            catch (HttpRequestException refused) when (!stop.IsCancellationRequested)
            {
                // Kestrel's own HTTP/2 defence against a client opening streams this fast: the stream
                // reset with ENHANCE_YOUR_CALM, or the connection closed with GOAWAY.
                answers.Add(new Trickled(0, $"{Reset}: {refused.HttpRequestError}", clock.Elapsed));
            }

            try
            {
                await Task.Delay(TimeSpan.FromSeconds(1), stop);
            }
            catch (OperationCanceledException)
            {
                break;
            }
        }

        return answers;
    }

    private static double Percentile(List<Trickled> answers, double q)
    {
        var ms = answers.Select(a => a.Elapsed.TotalMilliseconds).Order().ToList();
        return ms[Math.Min(ms.Count - 1, (int)(ms.Count * q))];
    }
}
