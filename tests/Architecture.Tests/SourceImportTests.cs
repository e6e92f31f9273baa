using System.Text.RegularExpressions;

namespace Kobo.Sync.Architecture.Tests;

/// <summary>
/// Inside each project, no folders import each other by their <c>using</c> lines, as a reader of the source sees
/// them: not two that import each other, nor a loop through more. A directive no type needs counts too, as do a
/// constant and a <c>cref</c>, which the compiled types (<see cref="FolderCycleTests"/>) do not show.
/// </summary>
public sealed partial class SourceImportTests
{
    public static TheoryData<string> Projects => [.. ProductAssemblies.All.Select(p => p.Project)];

    [Theory]
    [MemberData(nameof(Projects))]
    public void NoFoldersOfAProjectImportEachOther(string project)
    {
        var directory = Path.Combine(Repository.Root, "src", project);
        var files = Directory.EnumerateFiles(directory, "*.cs", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(directory, path).Replace('\\', '/'))
            .Where(path => !path.StartsWith("bin/", StringComparison.Ordinal) && !path.StartsWith("obj/", StringComparison.Ordinal))
            .Select(path => new SourceFile(path, File.ReadAllText(Path.Combine(directory, path))))
            .ToList();
        Assert.NotEmpty(files);
        var loops = ImportLoops("Kobo.Sync." + project, files);
        Assert.True(loops.Count == 0, $"folders of src/{project} that import each other:\n" + string.Join('\n', loops));
    }

    [Fact]
    public void FoldersImportingEachOtherOnPurposeAreFound()
    {
        var loops = ImportLoops("Kobo.Sync.Example",
        [
            new("Left/A.cs", "using System;\nusing Kobo.Sync.Example.Right;\n\nnamespace Kobo.Sync.Example.Left;\n"),
            new("Right/B.cs", "using static Kobo.Sync.Example.Left.Helpers;\n\nclass B\n{\n    void M()\n    {\n        using var x = Open();\n    }\n}\n"),
            new("Right/Deeper/B.cs", "using Example = Kobo.Sync.Example;\nusing Kobo.Sync.Example.Generated.V1;\n"),
            new("Top.cs", "using Kobo.Sync.Example.Three;\n"),
            new("Three/C.cs", "using Kobo.Sync.Example.Right.Deeper;\n"),
            new("Below/D.cs", "using Kobo.Sync.Example.Left;\n"),
        ]);
        Assert.Equal(
        [
            "(root) -> Three -> Right.Deeper -> (root): Top.cs, Three/C.cs, Right/Deeper/B.cs",
            "Left -> Right -> Left: Left/A.cs, Right/B.cs",
        ], loops);
    }

    /// <summary>A source file: its path under the project's folder, and its text.</summary>
    private sealed record SourceFile(string Path, string Text);

    /// <summary>
    /// One loop of each group of folders that reach each other through imports, as "A -&gt; B -&gt; A: a file of A
    /// importing B, a file of B importing A", starting from the group's first folder; in order.
    /// </summary>
    private static List<string> ImportLoops(string rootNamespace, IReadOnlyList<SourceFile> files)
    {
        var folders = new HashSet<string>(StringComparer.Ordinal) { "" };
        foreach (var file in files)
        {
            for (var folder = FolderOf(file.Path); folder.Length > 0; folder = folder.Contains('.', StringComparison.Ordinal) ? folder[..folder.LastIndexOf('.')] : "")
            {
                folders.Add(folder);
            }
        }

        var imports = new SortedDictionary<string, SortedDictionary<string, string>>(StringComparer.Ordinal);
        foreach (var file in files)
        {
            var from = FolderOf(file.Path);
            foreach (Match directive in UsingDirective().Matches(file.Text))
            {
                if (FolderNamed(directive.Groups["ns"].Value, rootNamespace, folders) is { } to && to != from)
                {
                    var targets = imports.TryGetValue(from, out var known) ? known : imports[from] = new(StringComparer.Ordinal);
                    targets.TryAdd(to, file.Path);
                }
            }
        }

        var loops = new List<string>();
        var placed = new HashSet<string>(StringComparer.Ordinal);
        foreach (var start in imports.Keys)
        {
            // The shortest way back to start (breadth first); every folder on it shares start's group.
            if (placed.Contains(start) || ShortestPath(imports, start, start) is not { } loop)
            {
                continue;
            }

            var group = imports.Keys.Where(f => ShortestPath(imports, start, f) is not null && ShortestPath(imports, f, start) is not null);
            placed.UnionWith(group);
            var via = loop.Zip(loop.Skip(1), (a, b) => imports[a][b]);
            loops.Add($"{string.Join(" -> ", loop.Select(Shown))}: {string.Join(", ", via)}");
        }

        return loops;
    }

    /// <summary>The folders from <paramref name="from"/> to <paramref name="to"/> through imports (at least one step), or null.</summary>
    private static List<string>? ShortestPath(SortedDictionary<string, SortedDictionary<string, string>> imports, string from, string to)
    {
        var previous = new Dictionary<string, string>(StringComparer.Ordinal);
        var queue = new Queue<string>([from]);
        while (queue.TryDequeue(out var folder))
        {
            foreach (var next in imports.TryGetValue(folder, out var targets) ? targets.Keys : Enumerable.Empty<string>())
            {
                if (next == to)
                {
                    var path = new List<string> { to, folder };
                    for (var back = folder; back != from; back = previous[back])
                    {
                        path.Add(previous[back]);
                    }

                    path.Reverse();
                    return path;
                }

                if (next != from && previous.TryAdd(next, folder))
                {
                    queue.Enqueue(next);
                }
            }
        }

        return null;
    }

    /// <summary>A file's folder as a namespace suffix: "Infrastructure/Admission/X.cs" is "Infrastructure.Admission"; the project's own is "".</summary>
    private static string FolderOf(string path) =>
        path.Contains('/', StringComparison.Ordinal) ? path[..path.LastIndexOf('/')].Replace('/', '.') : "";

    /// <summary>
    /// The project folder a directive's name falls in (the longest folder it is or lies under; a <c>using static</c>
    /// names a type in it), the name itself for a namespace with no folder (generated code's), or null outside the project.
    /// </summary>
    private static string? FolderNamed(string name, string rootNamespace, HashSet<string> folders)
    {
        if (name == rootNamespace)
        {
            return "";
        }

        if (!name.StartsWith(rootNamespace + ".", StringComparison.Ordinal))
        {
            return null;
        }

        var rest = name[(rootNamespace.Length + 1)..];
        return folders.Where(f => f.Length > 0 && (rest == f || rest.StartsWith(f + ".", StringComparison.Ordinal)))
            .OrderByDescending(f => f.Length)
            .FirstOrDefault() ?? rest;
    }

    private static string Shown(string folder) => folder.Length == 0 ? "(root)" : folder;

    /// <summary>A using directive (global, static or aliased too); a using statement or declaration does not end in a name and ';'.</summary>
    [GeneratedRegex(@"^[ \t]*(?:global[ \t]+)?using[ \t]+(?:static[ \t]+)?(?:\w+[ \t]*=[ \t]*)?(?<ns>[\w.]+)[ \t]*;", RegexOptions.Multiline)]
    private static partial Regex UsingDirective();
}
