using Kobo.Sync.DeviceSimulator.Profiles;
using Kobo.Sync.DeviceSimulator.Tests.Support;

namespace Kobo.Sync.DeviceSimulator.Tests.Profiles;

[Trait("Category", "Fast")]
public sealed class LoadProfileTests : IDisposable
{
    private readonly string _path = Path.Combine(Path.GetTempPath(), $"kobo-sim-profile-{Guid.NewGuid():N}.json");

    public static TheoryData<string> ShippedProfiles() => new(["local", "budget-arm", "high-perf", "spike"]);

    [Theory]
    [MemberData(nameof(ShippedProfiles))]
    public void EveryShippedProfileLoadsWithTheDefaultSla(string name)
    {
        var profile = LoadProfile.Load(RepositoryRoot.Profile(name));

        Assert.Equal(name, profile.Name);
        Assert.NotEmpty(profile.Scenarios);
        Assert.Equal(200, profile.Thresholds.P99Ms);
        Assert.Equal(0.1, profile.Thresholds.FailedSyncPercent);
    }

    [Fact]
    public void TheSmokeProfileStaysShortEnoughForTheTestSuite()
    {
        var profile = LoadProfile.Load(RepositoryRoot.Profile("smoke"));

        Assert.Equal(0.1, profile.Thresholds.FailedSyncPercent);
        Assert.InRange(profile.Thresholds.P99Ms, 200, 5_000); // a path check in the suite; the SLA is gated by the other profiles

        Assert.All(profile.Scenarios, s => Assert.True(s.Steps.Sum(step => step.DurationSeconds * Math.Max(step.Rate, step.RampTo ?? 0)) <= 100));

        // Every read that raw PostgreSQL can serve (the baseline), over every transport.
        var baselineReads = Enum.GetValues<ReadKind>().Where(r => Loads(r, Transport.Postgres)).ToList();
        Assert.NotEmpty(baselineReads);
        Assert.All(
            baselineReads.SelectMany(r => Enum.GetValues<Transport>().Select(t => (r, t))),
            pair => Assert.Contains(profile.Scenarios, s => (s.Read, s.Transport) == pair));
    }

    /// <summary>Whether a profile of one scenario reading <paramref name="read"/> over <paramref name="transport"/> loads.</summary>
    private bool Loads(ReadKind read, Transport transport)
    {
        var name = System.Text.Json.JsonNamingPolicy.KebabCaseLower.ConvertName;
        File.WriteAllText(_path, $$"""
            { "name": "x",
              "scenarios": [ { "read": "{{name(read.ToString())}}", "transport": "{{name(transport.ToString())}}", "steps": [ { "rate": 1, "durationSeconds": 1 } ] } ] }
            """);
        try
        {
            return LoadProfile.Load(_path).Scenarios.Single().Read == read;
        }
        catch (ProfileException)
        {
            return false;
        }
    }

    [Theory]
    [InlineData("sync-session")]
    [InlineData("first-sync-storm")]
    public void TheDeviceSyncProfilesRunOverTheServiceAndPaceTheirDevicesUnderItsPerDeviceLimit(string name)
    {
        var profile = LoadProfile.Load(RepositoryRoot.Profile(name));

        Assert.Equal(name, profile.Name);
        Assert.Equal(0.1, profile.Thresholds.FailedSyncPercent);
        Assert.All(profile.Scenarios, s => Assert.NotEqual(Transport.Postgres, s.Transport));
        Assert.InRange(profile.Device.Burst, 1, 20); // the service: a burst of 20, then 10 requests/s per device
        Assert.InRange(profile.Device.RequestsPerSecond, 1, 10);
    }

    [Fact]
    public void DeviceSyncAgainstRawPostgresOrWithABadPageSizeIsRefused()
    {
        File.WriteAllText(_path, """
            { "name": "x",
              "scenarios": [ { "read": "sync-session", "transport": "postgres", "pageSize": 0, "steps": [ { "rate": 1, "durationSeconds": 1 } ] } ] }
            """);

        var error = Assert.Throws<ProfileException>(() => LoadProfile.Load(_path));
        Assert.Contains("pageSize", error.Message);
        Assert.Contains("over rest or grpc", error.Message);
    }

    [Fact]
    public void AnUnknownFieldIsRefusedWithItsName()
    {
        File.WriteAllText(_path, """{ "name": "x", "scenarios": [], "rateLimit": 5 }""");

        var error = Assert.Throws<ProfileException>(() => LoadProfile.Load(_path));
        Assert.Contains("rateLimit", error.Message);
    }

    [Fact]
    public void AProfileCanReadTheUsersShuffledFromAnOffset()
    {
        File.WriteAllText(_path, """
            { "name": "x", "userOrder": "shuffled", "userOffset": 500,
              "scenarios": [ { "read": "user-by-id", "transport": "rest", "steps": [ { "rate": 10, "durationSeconds": 1 } ] } ] }
            """);

        var profile = LoadProfile.Load(_path);

        Assert.Equal(UserOrder.Shuffled, profile.UserOrder);
        Assert.Equal(500, profile.UserOffset);
    }

    [Fact]
    public void ABadValueIsRefusedSayingWhatIsWrong()
    {
        File.WriteAllText(_path, """
            { "name": "x", "thresholds": { "p99Ms": 0 },
              "scenarios": [ { "read": "user-by-id", "transport": "rest", "steps": [ { "rate": 10, "durationSeconds": 0 } ] } ] }
            """);

        var error = Assert.Throws<ProfileException>(() => LoadProfile.Load(_path));
        Assert.Contains("p99Ms", error.Message);
        Assert.Contains("durationSeconds", error.Message);
    }

    [Fact]
    public void AnUnknownReadIsRefused()
    {
        File.WriteAllText(_path, """{ "name": "x", "scenarios": [ { "read": "everything", "transport": "rest", "steps": [] } ] }""");

        Assert.Throws<ProfileException>(() => LoadProfile.Load(_path));
    }

    public void Dispose() => File.Delete(_path);
}
