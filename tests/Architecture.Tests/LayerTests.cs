using System.Reflection;
using ArchUnitNET.xUnitV3;
using static ArchUnitNET.Fluent.ArchRuleDefinition;
using static Kobo.Sync.Architecture.Tests.ProductAssemblies;

namespace Kobo.Sync.Architecture.Tests;

/// <summary>
/// The direction between the projects, as their compiled types use each other (docs/architecture.md, "Projects"):
/// the domain and the contracts at the bottom, storage on the domain, the development server on storage, the web
/// host on all of them, the simulator on the contracts and storage, never the web host.
/// </summary>
public sealed class LayerTests
{
    /// <summary>Each project and the product projects it may use; any other product assembly is out of bounds.</summary>
    public static TheoryData<string> Projects => [.. All.Select(p => p.Project)];

    private static readonly Dictionary<string, Assembly[]> Allowed = new()
    {
        ["Domain"] = [],
        ["Contracts"] = [],
        ["Storage"] = [DomainAssembly],
        ["DevServer"] = [DomainAssembly, StorageAssembly],
        ["SyncApi"] = [DomainAssembly, ContractsAssembly, StorageAssembly, DevServerAssembly],
        ["DeviceSimulator"] = [DomainAssembly, ContractsAssembly, StorageAssembly],
    };

    [Theory]
    [MemberData(nameof(Projects))]
    public void AProjectUsesOnlyTheProjectsBelowIt(string project)
    {
        var assembly = All.Single(p => p.Project == project).Assembly;
        foreach (var forbidden in All.Select(p => p.Assembly).Where(a => a != assembly && !Allowed[project].Contains(a)))
        {
            NoTypeOf(assembly).Should().NotDependOnAnyTypesThat().ResideInAssembly(forbidden)
                .Because($"{project} must not use {forbidden.GetName().Name} (docs/architecture.md, \"Projects\")")
                .Check(Product);
        }
    }

    [Fact]
    public void TheDomainKnowsNoProtocolAndNoDatabase() =>
        NoTypeOf(DomainAssembly).Should().NotDependOnAnyTypesThat().ResideInNamespaceMatching(@"^(Microsoft\.AspNetCore|Grpc|Google\.Protobuf|Npgsql|Polly)(\..*)?$")
            .Check(Product);

    [Fact]
    public void StorageKnowsNeitherHttpNorGrpc() =>
        NoTypeOf(StorageAssembly).Should().NotDependOnAnyTypesThat().ResideInNamespaceMatching(@"^(Microsoft\.AspNetCore|Grpc|Google\.Protobuf)(\..*)?$")
            .Check(Product);

    [Fact]
    public void TheContractsKnowNoServer() =>
        NoTypeOf(ContractsAssembly).Should().NotDependOnAnyTypesThat().ResideInNamespaceMatching(@"^(Microsoft\.AspNetCore|Npgsql|Polly)(\..*)?$")
            .Check(Product);

    /// <summary>The rule above, broken on purpose by a type of this assembly that uses the web host: it must fail.</summary>
    [Fact]
    public void ALayerRuleBrokenOnPurposeFails()
    {
        var rule = Types().That().ResideInNamespaceMatching(@"^Kobo\.Sync\.Architecture\.Tests\.Broken\.Layer$")
            .Should().NotDependOnAnyTypesThat().ResideInAssembly(WebHostAssembly);
        Assert.False(rule.HasNoViolations(Product));
        Assert.Throws<FailedArchRuleException>(() => rule.Check(Product));
    }

    private static ArchUnitNET.Fluent.Syntax.Elements.Types.GivenTypesConjunction NoTypeOf(Assembly assembly) =>
        Types().That().ResideInAssembly(assembly);
}
