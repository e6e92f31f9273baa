using System.Text.RegularExpressions;

namespace Kobo.Sync.Architecture.Tests;

/// <summary>
/// Inside each project, no two folders import each other by their <c>using</c> lines, as a reader of the source
/// sees them: a directive no type needs any more counts too, which the compiled types (<see cref="FolderCycleTests"/>)
/// do not show.
/// </summary>
public sealed partial class SourceImportTests
{
    public static TheoryData<string> Projects => [.. ProductAssemblies.All.Select(p => p.Project)];

    [Theory]
    [MemberData(nameof(Projects))]
    public void NoTwoFoldersOfAProjectImportEachOther(string project)
    {
        var directory = Path.Combine(Repository.Root, "src", project);
        var files = Directory.EnumerateFiles(directory, "*.cs", SearchOption.AllDirectories)
            .Select(path => Path.GetRelativePath(directory, path).Replace('\\', '/'))
            .Where(path => !path.StartsWith("bin/", StringComparison.Ordinal) && !path.StartsWith("obj/", StringComparison.Ordinal))
            .Select(path => new SourceFile(path, File.ReadAllText(Path.Combine(directory, path))))
            .ToList();
        Assert.NotEmpty(files);
        var pairs = FoldersImportingEachOther("Kobo.Sync." + project, files);
        Assert.True(pairs.Count == 0, $"folders of src/{project} that import each other:\n" + string.Join('\n', pairs));
    }

    [Fact]
    public void TwoFoldersImportingEachOtherOnPurposeAreFound()
    {
        var pairs = FoldersImportingEachOther("Kobo.Sync.Example",
        [
            new("Left/A.cs", "using System;\nusing Kobo.Sync.Example.Right;\n\nnamespace Kobo.Sync.Example.Left;\n"),
            new("Right/Deeper/B.cs", "using Example = Kobo.Sync.Example;\nusing Kobo.Sync.Example.Generated.V1;\n"),
            new("Right/B.cs", "using static Kobo.Sync.Example.Left.Helpers;\n\nclass B\n{\n    void M()\n    {\n        using var x = Open();\n    }\n}\n"),
            new("Top.cs", "using Kobo.Sync.Example.Right.Deeper;\n"),
            new("Below/C.cs", "using Kobo.Sync.Example.Left;\n"),
        ]);
        Assert.Equal(
            ["(root) <-> Right.Deeper: Top.cs imports Right.Deeper; Right/Deeper/B.cs imports (root)", "Left <-> Right: Left/A.cs imports Right; Right/B.cs imports Left"],
            pairs);
    }

    /// <summary>A source file: its path under the project's folder, and its text.</summary>
    private sealed record SourceFile(string Path, string Text);

    /// <summary>Each pair as "A &lt;-&gt; B: a file of A importing B; a file of B importing A", in order.</summary>
    private static List<string> FoldersImportingEachOther(string rootNamespace, IReadOnlyList<SourceFile> files)
    {
        var folders = new HashSet<string>(StringComparer.Ordinal) { "" };
        foreach (var file in files)
        {
            for (var folder = FolderOf(file.Path); folder.Length > 0; folder = folder.Contains('.', StringComparison.Ordinal) ? folder[..folder.LastIndexOf('.')] : "")
            {
                folders.Add(folder);
            }
        }

        var imports = new Dictionary<(string From, string To), string>();
        foreach (var file in files)
        {
            var from = FolderOf(file.Path);
            foreach (Match directive in UsingDirective().Matches(file.Text))
            {
                if (FolderNamed(directive.Groups["ns"].Value, rootNamespace, folders) is { } to && to != from)
                {
                    imports.TryAdd((from, to), file.Path);
                }
            }
        }

        return
        [
            .. imports.Keys.Where(k => string.CompareOrdinal(k.From, k.To) < 0 && imports.ContainsKey((k.To, k.From)))
                .OrderBy(k => k.From, StringComparer.Ordinal).ThenBy(k => k.To, StringComparer.Ordinal)
                .Select(k => $"{Shown(k.From)} <-> {Shown(k.To)}: {imports[k]} imports {Shown(k.To)}; {imports[(k.To, k.From)]} imports {Shown(k.From)}"),
        ];
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
