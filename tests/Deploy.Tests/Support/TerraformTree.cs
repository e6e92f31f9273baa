using System.Text.Json;

namespace Kobo.Sync.Deploy.Tests.Support;

/// <summary>
/// Every .tf file under deploy/terraform, parsed once per test class by the HCL parser of
/// <c>@cdktf/hcl2json</c> (installed into tests/Deploy.Tests/hcl by the test command).
/// </summary>
public sealed class TerraformTree
{
    public const string RootPath = "deploy/terraform";

    public TerraformTree()
    {
        var hclDir = Repository.PathOf("tests/Deploy.Tests/hcl");
        if (!Directory.Exists(Path.Combine(hclDir, "node_modules", "@cdktf", "hcl2json")))
        {
            throw new InvalidOperationException(
                "The HCL parser is not installed: run the README's test command (it runs npm ci in tests/Deploy.Tests/hcl).");
        }

        var outcome = ProcessRunner.Run("node", ["parse.mjs", Repository.PathOf(RootPath)], hclDir, TimeSpan.FromMinutes(2));
        if (outcome.ExitCode != 0)
        {
            throw new InvalidOperationException($"Terraform did not parse: {outcome.StdErr}");
        }

        using var json = JsonDocument.Parse(outcome.StdOut);
        Files = json.RootElement.EnumerateObject().ToDictionary(p => p.Name, p => p.Value.Clone(), StringComparer.Ordinal);
    }

    /// <summary>Parsed files by path relative to deploy/terraform, e.g. <c>modules/ravendb/main.tf</c>.</summary>
    public IReadOnlyDictionary<string, JsonElement> Files { get; }

    /// <summary>
    /// The named blocks under a path of labels: <c>Blocks("variable")</c>, <c>Blocks("module")</c>, or
    /// <c>Blocks("resource", "aws_instance")</c> for the resources of one type.
    /// </summary>
    public IEnumerable<Block> Blocks(params string[] path)
    {
        foreach (var (file, body) in Files)
        {
            var level = body;
            if (!path.All(label => level.TryGetProperty(label, out level)))
            {
                continue;
            }

            foreach (var named in level.EnumerateObject())
            {
                foreach (var block in named.Value.EnumerateArray())
                {
                    yield return new Block(file, named.Name, block);
                }
            }
        }
    }

    public IEnumerable<Block> Resources(string type) => Blocks("resource", type);

    /// <summary>The merged <c>locals</c> of every file in one module folder ("" for the root).</summary>
    public IReadOnlyDictionary<string, JsonElement> Locals(string moduleDir) =>
        (from file in Files
         where ModuleOf(file.Key) == moduleDir && file.Value.TryGetProperty("locals", out _)
         from block in file.Value.GetProperty("locals").EnumerateArray()
         from local in block.EnumerateObject()
         select local).ToDictionary(p => p.Name, p => p.Value, StringComparer.Ordinal);

    public static string ModuleOf(string file) => Path.GetDirectoryName(file)?.Replace('\\', '/') ?? string.Empty;

    /// <summary>One named block: a resource, variable, output or module call, with its file.</summary>
    public sealed record Block(string File, string Name, JsonElement Body)
    {
        public string? Text(string attribute) =>
            Body.TryGetProperty(attribute, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;

        public bool Has(string attribute) => Body.TryGetProperty(attribute, out _);

        public override string ToString() => $"{File}: {Name}";
    }
}
