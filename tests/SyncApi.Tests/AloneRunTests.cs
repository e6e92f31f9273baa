using System.Reflection;
using Kobo.Sync.SyncApi.Tests.Support;

namespace Kobo.Sync.SyncApi.Tests;

/// <summary>
/// The test command runs the classes that must not share their process in a process of their own,
/// selected by <see cref="AloneRun"/>'s trait: every class of a collection that disables
/// parallelization carries it, and no other class does.
/// </summary>
[Trait("Category", "Fast")]
public sealed class AloneRunTests
{
    [Fact]
    public void EveryClassOfACollectionThatRunsAloneCarriesTheTraitAndNoOtherDoes()
    {
        var assembly = typeof(AloneRunTests).Assembly;
        var alone = assembly.GetTypes()
            .SelectMany(t => t.GetCustomAttributesData())
            .Where(a => a.AttributeType == typeof(CollectionDefinitionAttribute)
                && a.NamedArguments.Any(n => n.MemberName == nameof(CollectionDefinitionAttribute.DisableParallelization) && n.TypedValue.Value is true))
            .Select(a => (string)a.ConstructorArguments[0].Value!)
            .ToHashSet(StringComparer.Ordinal);
        Assert.NotEmpty(alone);

        var wrong = new List<string>();
        foreach (var type in assembly.GetTypes().Where(t => t.GetMethods().Any(m => m.GetCustomAttributes<FactAttribute>().Any())))
        {
            var inAlone = type.GetCustomAttributesData().Any(a =>
                a.AttributeType == typeof(CollectionAttribute) && a.ConstructorArguments is [{ Value: string name }] && alone.Contains(name));
            var traited = type.GetCustomAttributesData().Any(a =>
                a.AttributeType == typeof(TraitAttribute)
                && a.ConstructorArguments is [{ Value: AloneRun.Trait }, { Value: AloneRun.Value }]);
            if (inAlone != traited)
            {
                wrong.Add($"{type.FullName}: {(inAlone ? "runs alone without" : "carries")} the trait {AloneRun.Trait}={AloneRun.Value}");
            }
        }

        Assert.True(wrong.Count == 0, string.Join(Environment.NewLine, wrong));
    }
}
