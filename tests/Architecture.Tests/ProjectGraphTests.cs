using System.Xml.Linq;

namespace Kobo.Sync.Architecture.Tests;

/// <summary>
/// The project graph in docs/architecture.md ("Projects") is the one the project files state, drawn from them
/// here: a reference added or dropped fails this test until the document shows it.
/// </summary>
public sealed class ProjectGraphTests
{
    private const string Begin = "<!-- project-graph:begin (tests/Architecture.Tests/ProjectGraphTests.cs) -->";
    private const string End = "<!-- project-graph:end -->";

    [Fact]
    public void TheArchitectureDocumentShowsTheProjectGraphOfTheProjectFiles()
    {
        var expected = "```mermaid\n" + Render(References()) + "\n```";
        var document = File.ReadAllText(Path.Combine(Root, "docs", "architecture.md"));
        var start = document.IndexOf(Begin, StringComparison.Ordinal);
        var end = document.IndexOf(End, StringComparison.Ordinal);
        Assert.True(start >= 0 && end > start, $"docs/architecture.md has no block between {Begin} and {End}");
        var shown = document[(start + Begin.Length)..end].Trim();
        Assert.True(shown == expected, $"docs/architecture.md's project graph differs from the project files; it should read:\n{expected}");
    }

    [Fact]
    public void TheProjectGraphHasNoCycle()
    {
        var references = References();
        var done = new HashSet<string>();
        var visiting = new HashSet<string>();
        foreach (var project in references.Select(r => r.From).Distinct())
        {
            Visit(project);
        }

        void Visit(string project)
        {
            Assert.True(visiting.Add(project) || done.Contains(project), $"the projects reach {project} again from itself");
            if (done.Contains(project))
            {
                return;
            }

            foreach (var reference in references.Where(r => r.From == project))
            {
                Visit(reference.To);
            }

            visiting.Remove(project);
            done.Add(project);
        }
    }

    [Fact]
    public void ADrawingOfAReferenceShowsWhetherItIsConditional() =>
        Assert.Equal(
            "graph TD\n  A --> B\n  A -. not in a publish .-> C",
            Render([new("A", "B", Conditional: false), new("A", "C", Conditional: true)]));

    private sealed record Reference(string From, string To, bool Conditional);

    /// <summary>Every product project's references, by project name (its file's name), in a stable order.</summary>
    private static List<Reference> References()
    {
        var references = new List<Reference>();
        foreach (var file in Directory.EnumerateFiles(Path.Combine(Root, "src"), "*.csproj", SearchOption.AllDirectories))
        {
            var from = Path.GetFileNameWithoutExtension(file);
            foreach (var item in XDocument.Load(file).Descendants("ProjectReference"))
            {
                var conditional = item.Attribute("Condition") is not null || item.Parent?.Attribute("Condition") is not null;
                var to = Path.GetFileNameWithoutExtension(item.Attribute("Include")!.Value.Replace('\\', '/'));
                references.Add(new(from, to, conditional));
            }
        }

        return [.. references.OrderBy(r => r.From, StringComparer.Ordinal).ThenBy(r => r.To, StringComparer.Ordinal)];
    }

    /// <summary>A Mermaid flowchart: one line per reference, dotted for one made only in not in a publish.</summary>
    private static string Render(IEnumerable<Reference> references) =>
        "graph TD\n" + string.Join('\n', references.Select(r => r.Conditional
            ? $"  {r.From} -. not in a publish .-> {r.To}"
            : $"  {r.From} --> {r.To}"));

    private static string Root => Repository.Root;
}
