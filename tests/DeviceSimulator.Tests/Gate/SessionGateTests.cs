using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Tests.Gate;

/// <summary>A whole device-sync session is judged by the session limit when the profile sets one; its requests by the SLA's p99 either way.</summary>
[Trait("Category", "Fast")]
public sealed class SessionGateTests
{
    [Fact]
    public void ASessionOfSeveralRequestsIsJudgedByTheSessionLimitAndEachRequestByTheSlas()
    {
        var day = GateRuns.Load(Transport.Rest, (100, 10)) with { Read = ReadKind.Day };
        // Sessions: 2 % take 250 ms (four requests of about 60 ms); the requests themselves stay at 50 ms.
        var sessions = GateRuns.Stats("day-rest", 10, 100, _ => 2);
        var pulls = GateRuns.Stats("day-rest/pull", 10, 100, _ => 0);

        var bySla = GateRuns.Build([(day, sessions), (day, pulls)]);
        var bySession = GateRuns.Build([(day, sessions), (day, pulls)], thresholds: new Thresholds { SessionP99Ms = 2000 });
        var slowRequests = GateRuns.Build(
            [(day, sessions), (day, GateRuns.Stats("day-rest/pull", 10, 100, _ => 2))], thresholds: new Thresholds { SessionP99Ms = 2000 });

        Assert.Equal(("day-rest", 200.0), Assert.Single(bySla.Checks, c => !c.Passed) is var f ? (f.Subject, f.Limit) : default);
        Assert.True(bySession.Passed, bySession.Verdict);
        Assert.Equal(2000, Assert.Single(bySession.Checks, c => c.Subject == "day-rest" && c.Metric == "p99 ms").Limit);
        Assert.Equal("day-rest/pull", Assert.Single(slowRequests.Checks, c => !c.Passed).Subject);
    }
}
