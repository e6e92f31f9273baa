namespace Kobo.Sync.SyncApi.Tests.Support;

/// <summary>A bound on any single test call, so a hang fails the test instead of stalling the suite.</summary>
public static class TestTimeout
{
    public static CancellationToken Token => new CancellationTokenSource(TimeSpan.FromSeconds(30)).Token;
}
