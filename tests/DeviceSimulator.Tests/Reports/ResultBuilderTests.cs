using Kobo.Sync.DeviceSimulator.Metrics;
using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Reports;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Tests.Reports;

[Trait("Category", "Fast")]
public sealed class ResultBuilderTests
{
    private static readonly LoadStep[] TwoSteps = [new LoadStep { Rate = 10, DurationSeconds = 2 }, new LoadStep { Rate = 20, DurationSeconds = 2 }];

    [Fact]
    public void TheReportStatesTheServiceOverRawPostgresRatioForTheRunAndForEachStep()
    {
        var rest = new ScenarioLoad { Read = ReadKind.UserById, Transport = Transport.Rest, Steps = TwoSteps };
        var raw = new ScenarioLoad { Read = ReadKind.UserById, Transport = Transport.Postgres, Steps = TwoSteps };
        var profile = new LoadProfile { Name = "ratio", Scenarios = [rest, raw] };

        // The service takes 4 ms then 30 ms; PostgreSQL 2 ms then 10 ms.
        var result = ResultBuilder.Build(
            profile, ["1/1"], DateTimeOffset.UnixEpoch, TimeSpan.FromSeconds(4),
            [(rest, Stats("user-by-id-rest", 4, 30)), (raw, Stats("user-by-id-postgres", 2, 10))],
            new GeneratorStats(0, 0, TimeSpan.Zero, TimeSpan.Zero, 2, false));

        Assert.Equal(3, result.Baseline.Count);
        var first = Assert.Single(result.Baseline, b => b.Step == 0);
        var second = Assert.Single(result.Baseline, b => b.Step == 1);
        Assert.Equal(2, first.P50Ratio, 2);
        Assert.Equal(3, second.P50Ratio, 2);
        Assert.Contains(result.Baseline, b => b.Step is null);
        Assert.Contains("| UserById | Rest | 2 | 30.00 / 10.00 ms = 3.0x", MarkdownSummary.Render(result));
        Assert.Equal([20, 20], result.Scenarios[0].Steps.Select(s => (int)s.Syncs));
    }

    private static ScenarioStats Stats(string name, int firstMs, int secondMs)
    {
        var stats = new ScenarioStats(name);
        for (var second = 0; second < 4; second++)
        {
            for (var i = 0; i < 10; i++)
            {
                stats.Record(second, TimeSpan.FromMilliseconds(second < 2 ? firstMs : secondMs), SyncOutcome.Ok, 1);
            }
        }

        return stats;
    }
}
