using System.Buffers.Text;
using System.Globalization;
using System.Text;
using Kobo.Sync.SyncApi.Tests.Resilience;
using Kobo.Sync.SyncApi.Tests.Support;
using Xunit.Abstractions;

namespace Kobo.Sync.SyncApi.Tests.Performance;

/// <summary>
/// The bytes the service allocates per request of each hot request (the three device reads and a push of
/// ten changes), held to the committed budgets (<see cref="AllocationBudgets"/>): a change that makes one
/// allocate much more fails with the figure measured. Measured in this process, which hosts the service,
/// with <c>GC.GetTotalAllocatedBytes(precise: true)</c> around runs of a few thousand requests from a
/// client that allocates nothing per request (<see cref="RawHttpConnection"/>). Background work (the
/// health publisher, telemetry timers) adds a little to a run, and now and then one run of ten comes
/// out far below the others, so each figure is the median of several runs. Run times are printed,
/// never asserted. Alone, since any other test's work would count too.
/// </summary>
[Collection(MeasuredAloneCollection.Name)]
[Trait(AloneRun.Trait, AloneRun.Value)]
public sealed class AllocationBudgetTests(AllocationService service, ITestOutputHelper output) : IClassFixture<AllocationService>
{
    /// <summary>
    /// Rounds of every figure before measuring (the first visit of each token validates it; JIT tiering,
    /// pools and caches fill): the figures settled within 2 % from the second round on.
    /// </summary>
    private const int WarmUpRounds = 2;

    /// <summary>The verdict takes the median of these rounds.</summary>
    private const int MeasuredRounds = 3;

    /// <summary>
    /// The log writer formats the request lines on its own thread, in batches, up to 200 ms after them
    /// (BufferedStdoutSink.FlushInterval): a run waits for it on both sides, so it counts the formatting
    /// of its own lines, not of the run before.
    /// </summary>
    private static readonly TimeSpan LogDrain = TimeSpan.FromMilliseconds(300);

    private const string AllocatedMetric = "dotnet_gc_heap_total_allocated_bytes_total";

    /// <summary>How far the service's own allocation counter on /metrics may differ from the in-process figure.</summary>
    private const double MetricsAgreement = 0.10;

    [Fact]
    public async Task TheHotRequestsAllocateNoMoreThanTheirCommittedBudgets()
    {
        var figures = HotRequests.All(service.Host.RestAddress);
        var runs = figures.ToDictionary(f => f.Key, _ => new List<double>());
        var metricsCheck = (InProcess: 0.0, Metrics: 0.0);
        await OnOwnThreadAsync(() =>
        {
            using var connection = new RawHttpConnection(service.Host.RestAddress);
            for (var round = 1; round <= WarmUpRounds; round++)
            {
                foreach (var figure in figures)
                {
                    output.WriteLine($"warm-up {round}, {figure.Key}: {Measure(figure, connection):N0} bytes/request");
                }
            }

            for (var round = 1; round <= MeasuredRounds; round++)
            {
                foreach (var figure in figures)
                {
                    var started = System.Diagnostics.Stopwatch.GetTimestamp();
                    runs[figure.Key].Add(Measure(figure, connection));
                    output.WriteLine($"round {round}, {figure.Key}: {runs[figure.Key][^1]:N0} bytes/request in {System.Diagnostics.Stopwatch.GetElapsedTime(started).TotalSeconds:N1} s");
                }
            }

            metricsCheck = AgainstMetrics(figures[0], connection);
        });

        foreach (var figure in figures)
        {
            await figure.VerifyStoredAsync(service);
        }

        var measured = figures.ToDictionary(f => f.Key, f => Median(runs[f.Key]));
        var budgets = AllocationBudgets.WriteRequested ? new Dictionary<string, long>() : AllocationBudgets.Read();
        var problems = new List<string>();
        foreach (var figure in figures)
        {
            var list = string.Join(", ", runs[figure.Key].Select(r => r.ToString("N0", CultureInfo.InvariantCulture)));
            var budget = budgets.TryGetValue(figure.Key, out var b) ? b : (long?)null;
            output.WriteLine($"{figure.Key}: {measured[figure.Key]:N0} bytes/request (runs of {figure.RequestsPerRun:N0}: {list}), budget {budget?.ToString("N0", CultureInfo.InvariantCulture) ?? "-"}");
            if (!AllocationBudgets.WriteRequested && AllocationBudgets.Verdict(figure, measured[figure.Key], budget, list) is { } problem)
            {
                problems.Add(problem);
            }
        }

        output.WriteLine($"{figures[0].Key} against the service's {AllocatedMetric}: {metricsCheck.InProcess:N0} in process, {metricsCheck.Metrics:N0} by /metrics ({(metricsCheck.Metrics / metricsCheck.InProcess) - 1:+0.00%;-0.00%})");
        Assert.True(
            Math.Abs((metricsCheck.Metrics / metricsCheck.InProcess) - 1) <= MetricsAgreement,
            $"The service's own {AllocatedMetric} says {metricsCheck.Metrics:N0} bytes/request of {figures[0].Key} where this process counted {metricsCheck.InProcess:N0}: the measurement is not the service's.");

        if (AllocationBudgets.WriteRequested)
        {
            // A budget is a ceiling: the highest run, so that a run that came out low cannot make it too tight.
            AllocationBudgets.Write(figures.ToDictionary(f => f.Key, f => runs[f.Key].Max()), $"{DateTime.UtcNow:yyyy-MM-dd}, {Environment.ProcessorCount} cores, {System.Runtime.InteropServices.RuntimeInformation.OSArchitecture}");
            output.WriteLine($"{AllocationBudgets.WriteVariable}=1: wrote these figures to {AllocationBudgets.FilePath}.");
            return;
        }

        Assert.True(problems.Count == 0, string.Join(Environment.NewLine + Environment.NewLine, problems));
    }

    /// <summary>Bytes allocated in this whole process per request over one run of <paramref name="figure"/>.</summary>
    private double Measure(HotRequest figure, RawHttpConnection connection)
    {
        service.Host.Logs.Clear();
        Thread.Sleep(LogDrain);
        var before = GC.GetTotalAllocatedBytes(precise: true);
        for (var i = 0; i < figure.RequestsPerRun; i++)
        {
            figure.SendNext(connection);
        }

        Thread.Sleep(LogDrain);
        var after = GC.GetTotalAllocatedBytes(precise: true);
        return (after - before) / (double)figure.RequestsPerRun;
    }

    /// <summary>One more run of <paramref name="figure"/>, counted in process and by the service's /metrics.</summary>
    private (double InProcess, double Metrics) AgainstMetrics(HotRequest figure, RawHttpConnection connection)
    {
        var scrape = Encoding.ASCII.GetBytes($"GET /metrics HTTP/1.1\r\nHost: {service.Host.RestAddress.Authority}\r\n\r\n");
        var first = Scrape(connection, scrape);
        var inProcess = Measure(figure, connection);
        var second = Scrape(connection, scrape);
        return (inProcess, (second - first) / figure.RequestsPerRun);
    }

    // Reads the one sample in place rather than through Telemetry/Support/Exposition: the scrape is
    // inside the window the service's counter covers, and parsing the whole exposition into strings
    // and regex matches put 17 % more on the counter's figure than the requests made.
    private static double Scrape(RawHttpConnection connection, byte[] request)
    {
        Assert.Equal(200, connection.Send(request));
        var body = connection.Body;
        var name = Encoding.ASCII.GetBytes(AllocatedMetric);
        foreach (var range in body.Split((byte)'\n'))
        {
            var line = body[range];
            if (line.StartsWith(name) && line.Length > name.Length && line[name.Length] is (byte)' ' or (byte)'{')
            {
                // name{labels} value [timestamp]
                var labelsEnd = line.IndexOf((byte)'}');
                var value = line[(labelsEnd < 0 ? name.Length : labelsEnd + 1)..].TrimStart((byte)' ');
                var end = value.IndexOf((byte)' ');
                Assert.True(Utf8Parser.TryParse(end < 0 ? value : value[..end], out double number, out _), Encoding.ASCII.GetString(line));
                return number;
            }
        }

        throw new InvalidOperationException($"No {AllocatedMetric} on /metrics.");
    }

    private static double Median(List<double> runs) => runs.Order().ElementAt(runs.Count / 2);

    /// <summary>The client blocks on its socket: on a thread of its own, not one of the service's pool threads.</summary>
    private static Task OnOwnThreadAsync(Action run) =>
        Task.Factory.StartNew(run, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
}
