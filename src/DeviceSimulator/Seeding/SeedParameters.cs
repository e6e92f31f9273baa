using System.Globalization;

namespace Kobo.Sync.DeviceSimulator.Seeding;

/// <summary>What decides a seed's rows: a seed resumes only a run with the same parameters.</summary>
public sealed record SeedParameters(
    int Seed, int Users, int Books, int HeaviestUserHighlights, int ChunkUsers, bool KeysDuringLoad, int Shape = SeedPlan.ShapeVersion)
{
    public static SeedParameters Of(SeedPlan plan, int chunkUsers, bool keysDuringLoad) =>
        new(plan.Scale.Seed, plan.Scale.Users, plan.Scale.Books, plan.Scale.HeaviestUserHighlights, chunkUsers, keysDuringLoad);

    /// <summary>The command-line options that repeat this seed.</summary>
    public string Options => string.Create(CultureInfo.InvariantCulture,
        $"--users {Users} --seed {Seed} --chunk-users {ChunkUsers}{(KeysDuringLoad ? " --keys-during-load" : string.Empty)}");
}
