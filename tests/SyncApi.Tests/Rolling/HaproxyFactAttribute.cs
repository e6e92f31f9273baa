namespace Kobo.Sync.SyncApi.Tests.Rolling;

/// <summary>A fact that needs HAProxy: skipped, saying why, on a machine without it (<c>.ci/run</c> installs it).</summary>
public sealed class HaproxyFactAttribute : FactAttribute
{
    public HaproxyFactAttribute()
    {
        if (!HaproxyFront.Installed)
        {
            Skip = "haproxy is not installed (apt-get install -y haproxy; .ci/run installs it)";
        }
    }
}
