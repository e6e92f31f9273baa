using static Kobo.Sync.Architecture.Tests.ProductAssemblies;

namespace Kobo.Sync.Architecture.Tests;

/// <summary>
/// Inside each project, no two folders (namespaces) use each other: a folder's types use another folder's only
/// when that folder's types do not use it back. Read from the compiled types' dependencies.
/// </summary>
public sealed class FolderCycleTests
{
    public static TheoryData<string> Projects => [.. All.Select(p => p.Assembly.GetName().Name!)];

    [Theory]
    [MemberData(nameof(Projects))]
    public void NoTwoFoldersOfAProjectUseEachOther(string assembly)
    {
        var pairs = FoldersUsingEachOther(assembly, assembly);
        Assert.True(pairs.Count == 0, $"folders of {assembly} that use each other:\n" + string.Join('\n', pairs));
    }

    [Fact]
    public void TwoFoldersBrokenOnPurposeAreFound()
    {
        var pairs = FoldersUsingEachOther(typeof(FolderCycleTests).Assembly.GetName().Name!, "Kobo.Sync.Architecture.Tests.Broken");
        Assert.Equal(["Left <-> Right"], pairs.Select(p => p[..p.IndexOf(':', StringComparison.Ordinal)]));
    }

    /// <summary>Each pair as "A <-> B: a type of A using B's, and one of B using A's".</summary>
    private static List<string> FoldersUsingEachOther(string assembly, string rootNamespace)
    {
        var uses = new Dictionary<(string From, string To), string>();
        foreach (var type in Product.Types.Where(t => t.Assembly.Name == assembly || t.Assembly.Name.StartsWith(assembly + ",", StringComparison.Ordinal)))
        {
            var from = Folder(type.Namespace.FullName, rootNamespace);
            foreach (var dependency in type.Dependencies)
            {
                var to = dependency.Target;
                if (from is null || to.Assembly?.Name != type.Assembly.Name || Folder(to.Namespace.FullName, rootNamespace) is not { } target || target == from)
                {
                    continue;
                }

                uses.TryAdd((from, target), $"{type.FullName} uses {to.FullName}");
            }
        }

        return
        [
            .. uses.Keys.Where(k => string.CompareOrdinal(k.From, k.To) < 0 && uses.ContainsKey((k.To, k.From)))
                .OrderBy(k => k.From, StringComparer.Ordinal).ThenBy(k => k.To, StringComparer.Ordinal)
                .Select(k => $"{k.From} <-> {k.To}: {uses[k]}; {uses[(k.To, k.From)]}"),
        ];
    }

    /// <summary>The folder of a namespace under <paramref name="root"/> (the root itself is ""), or null outside it.</summary>
    private static string? Folder(string ns, string root) =>
        ns == root ? "" : ns.StartsWith(root + ".", StringComparison.Ordinal) ? ns[(root.Length + 1)..] : null;
}
