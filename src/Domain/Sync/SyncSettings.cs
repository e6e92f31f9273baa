namespace Kobo.Sync.Domain.Sync;

/// <summary>The sync rules a deployment may tune.</summary>
/// <param name="MaxClockSkew">A device time further than this ahead of server time is replaced by server time.</param>
public sealed record SyncSettings(TimeSpan MaxClockSkew)
{
    public static SyncSettings Default { get; } = new(TimeSpan.FromMinutes(5));
}
