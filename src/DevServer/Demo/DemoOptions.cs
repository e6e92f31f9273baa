namespace Kobo.Sync.DevServer.Demo;

/// <summary>Demo data for a fresh store, so a newcomer's first request finds users and highlights.</summary>
public sealed class DemoOptions
{
    public const string SectionName = "Demo";

    /// <summary>Seed the demo data set at start when the users table is empty.</summary>
    public bool Seed { get; set; } = true;
}
