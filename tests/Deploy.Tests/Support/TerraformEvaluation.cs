using System.Globalization;
using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;

namespace Kobo.Sync.Deploy.Tests.Support;

/// <summary>
/// Evaluates the modules' own expressions with Terraform, offline: a scratch root module of variables,
/// locals and outputs (no provider, no resource) is applied and its outputs read back. A resource is
/// stood in for by a local list built from its own arguments (<see cref="StandIn"/>), so what a test
/// checks is what the expressions compute, however they are written.
/// </summary>
public static partial class TerraformEvaluation
{
    /// <summary>Applies <paramref name="hcl"/> as a root module; each output's value by name.</summary>
    public static IReadOnlyDictionary<string, JsonElement> Outputs(string hcl)
    {
        var root = Directory.CreateTempSubdirectory("kobo-sync-terraform-eval-").FullName;
        try
        {
            File.WriteAllText(Path.Combine(root, "main.tf"), hcl);
            foreach (var step in new[] { new[] { "init", "-input=false", "-no-color" }, ["apply", "-auto-approve", "-input=false", "-no-color"] })
            {
                var outcome = ProcessRunner.Run("terraform", step, root, TimeSpan.FromMinutes(1));
                Assert.True(outcome.ExitCode == 0, $"terraform {step[0]}: {outcome.StdOut}{outcome.StdErr}\n{hcl}");
            }

            var output = ProcessRunner.Run("terraform", ["output", "-json"], root, TimeSpan.FromMinutes(1));
            Assert.True(output.ExitCode == 0, output.StdErr);
            using var json = JsonDocument.Parse(output.StdOut);
            return json.RootElement.EnumerateObject().ToDictionary(o => o.Name, o => o.Value.GetProperty("value").Clone(), StringComparer.Ordinal);
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }

    /// <summary>HCL source of a parsed argument: an interpolation-only string is its expression, anything else a literal.</summary>
    public static string Expression(JsonElement value) => value.ValueKind switch
    {
        JsonValueKind.String => Unwrapped(value.GetString()!),
        JsonValueKind.Number => value.GetRawText(),
        JsonValueKind.True => "true",
        JsonValueKind.False => "false",
        JsonValueKind.Null => "null",
        JsonValueKind.Array => "[" + string.Join(", ", value.EnumerateArray().Select(Expression)) + "]",
        _ => "{\n" + string.Concat(value.EnumerateObject().Select(p => $"  \"{p.Name}\" = {Expression(p.Value)}\n")) + "}",
    };

    /// <summary>A <c>locals</c> block holding the module's locals as written.</summary>
    public static string Locals(IReadOnlyDictionary<string, JsonElement> locals) =>
        "locals {\n" + string.Concat(locals.Select(l => $"  {l.Key} = {Expression(l.Value)}\n")) + "}\n";

    /// <summary>
    /// A list standing in for a counted resource: one object per instance, holding <c>id</c> and the
    /// given arguments as the resource computes them for that instance (<c>count.index</c> bound).
    /// </summary>
    public static string StandIn(TerraformTree.Block resource, params string[] arguments)
    {
        var count = Expression(resource.Body.GetProperty("count"));
        var body = new StringBuilder($"{{ id = \"{resource.Name}-${{standin_index}}\"");
        foreach (var argument in arguments)
        {
            body.Append(CultureInfo.InvariantCulture, $", {argument} = {CountIndex().Replace(Expression(resource.Body.GetProperty(argument)), "standin_index")}");
        }

        return $"[for standin_index in range({count}) : {body} }}]";
    }

    /// <summary><paramref name="hcl"/> with every reference to <paramref name="address"/> (a resource or data source) pointing at <paramref name="replacement"/>.</summary>
    public static string Redirect(string hcl, string address, string replacement) =>
        Regex.Replace(hcl, $@"(?<![\w.]){Regex.Escape(address)}\b", replacement);

    private static string Unwrapped(string text)
    {
        if (text.StartsWith("${", StringComparison.Ordinal) && ClosingBrace(text, 1) == text.Length - 1)
        {
            return text[2..^1];
        }

        return JsonSerializer.Serialize(text); // HCL reads JSON's escapes, \uNNNN included
    }

    private static int ClosingBrace(string text, int open)
    {
        var depth = 0;
        for (var i = open; i < text.Length; i++)
        {
            depth += text[i] switch { '{' => 1, '}' => -1, _ => 0 };
            if (depth == 0)
            {
                return i;
            }
        }

        return -1;
    }

    [GeneratedRegex(@"\bcount\.index\b")]
    private static partial Regex CountIndex();
}
