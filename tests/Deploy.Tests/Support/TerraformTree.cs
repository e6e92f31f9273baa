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

    public IEnumerable<Block> Blocks(string kind) =>
        from file in Files
        where file.Value.TryGetProperty(kind, out _)
        from named in file.Value.GetProperty(kind).EnumerateObject()
        from body in named.Value.EnumerateArray()
        select new Block(file.Key, named.Name, body);

    public IEnumerable<Block> Resources(string type) =>
        from file in Files
        where file.Value.TryGetProperty("resource", out var r) && r.TryGetProperty(type, out _)
        from named in file.Value.GetProperty("resource").GetProperty(type).EnumerateObject()
        from body in named.Value.EnumerateArray()
        select new Block(file.Key, named.Name, body);

    public IEnumerable<string> ResourceTypes(string file) =>
        Files[file].TryGetProperty("resource", out var r) ? r.EnumerateObject().Select(p => p.Name) : [];

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
