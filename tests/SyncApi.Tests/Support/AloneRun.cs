namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>
/// The trait of the classes that must not share their process with another class's service (the
/// collections that disable parallelization: measured alone, telemetry, rolling upgrades). The test
/// command runs them in a test process of their own, beside the process that runs the rest in
/// parallel, instead of after it (tests/run.sh).
/// </summary>
public static class AloneRun
{
    public const string Trait = "Runs";

    public const string Value = "Alone";
}
