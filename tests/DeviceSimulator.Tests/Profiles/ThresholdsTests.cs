using Kobo.Sync.DeviceSimulator.Profiles;

namespace Kobo.Sync.DeviceSimulator.Tests.Profiles;

[Trait("Category", "Fast")]
public sealed class ThresholdsTests : IDisposable
{
    private readonly string _path = Path.Combine(Path.GetTempPath(), $"kobo-sim-profile-{Guid.NewGuid():N}.json");

    [Fact]
    public void AProfileSetsTheGatesWindowLength()
    {
        File.WriteAllText(_path, Profile("\"windowSeconds\": 30"));

        Assert.Equal(30, LoadProfile.Load(_path).Thresholds.WindowSeconds);
    }

    [Fact]
    public void AWindowOfNoSecondsIsRefused()
    {
        File.WriteAllText(_path, Profile("\"windowSeconds\": 0"));

        var error = Assert.Throws<ProfileException>(() => LoadProfile.Load(_path));
        Assert.Contains("windowSeconds", error.Message);
    }

    public void Dispose() => File.Delete(_path);

    private static string Profile(string thresholds) =>
        $$"""{ "name": "x", "thresholds": { {{thresholds}} }, "scenarios": [ { "read": "user-by-id", "transport": "rest", "steps": [ { "rate": 10, "durationSeconds": 5 } ] } ] }""";
}
