using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>
/// The boot scripts are the part of the deployment most likely to fail silently on a real machine, so each
/// cloud-init template is rendered by Terraform itself with sample values, validated against cloud-init's
/// schema, and every shell script it installs is syntax-checked by bash and linted by shellcheck.
/// </summary>
public sealed class CloudInitTests : IDisposable
{
    private const string Modules = "deploy/terraform/modules";

    private static readonly Dictionary<string, (string Template, string Values)> Cases = new(StringComparer.Ordinal)
    {
        ["ravendb-node-a"] = ("ravendb/templates/ravendb-cloud-init.yaml.tftpl", RavenDbValues(tag: "A", bootstrap: true)),
        ["ravendb-node-b"] = ("ravendb/templates/ravendb-cloud-init.yaml.tftpl", RavenDbValues(tag: "B", bootstrap: false)),
        ["syncapi-ecr"] = ("syncapi/templates/syncapi-cloud-init.yaml.tftpl", SyncApiValues(fromEcr: true)),
        ["syncapi-public-registry"] = ("syncapi/templates/syncapi-cloud-init.yaml.tftpl", SyncApiValues(fromEcr: false)),
        ["loadgen"] = ("loadgen/templates/loadgen-cloud-init.yaml.tftpl", """{ source_repository_url = "https://git.example.com/kobo-sync.git" }"""),
        ["loadgen-without-source"] = ("loadgen/templates/loadgen-cloud-init.yaml.tftpl", """{ source_repository_url = "" }"""),
    };

    private readonly string _scratch = Directory.CreateTempSubdirectory("kobo-sync-cloud-init-").FullName;

    public static TheoryData<string> CaseNames() => [.. Cases.Keys];

    [FactWhenOnPath("terraform")]
    public void EveryTemplateIsCovered()
    {
        var templates = Directory.GetFiles(Repository.PathOf(Modules), "*.tftpl", SearchOption.AllDirectories)
            .Select(f => Path.GetRelativePath(Repository.PathOf(Modules), f).Replace('\\', '/'));

        Assert.Equal(templates.Order(StringComparer.Ordinal), Cases.Values.Select(c => c.Template).Distinct().Order(StringComparer.Ordinal));
    }

    [TheoryWhenOnPath("terraform", "cloud-init", "shellcheck")]
    [MemberData(nameof(CaseNames))]
    public void TemplateRendersToValidCloudConfigWithCleanScripts(string caseName)
    {
        var rendered = Render(caseName);

        var schema = ProcessRunner.Run("cloud-init", ["schema", "--config-file", rendered], _scratch, TimeSpan.FromMinutes(1));
        Assert.True(schema.ExitCode == 0, $"cloud-init schema: {schema.StdOut}{schema.StdErr}");

        var extract = ProcessRunner.Run("/usr/bin/python3", [Repository.PathOf("tests/Deploy.Tests/cloudinit/extract_scripts.py"), rendered, Path.Combine(_scratch, "scripts")], _scratch, TimeSpan.FromMinutes(1));
        Assert.True(extract.ExitCode == 0, extract.StdErr);
        var scripts = extract.StdOut.Split('\n', StringSplitOptions.RemoveEmptyEntries).Select(line => line.Split('\t')).ToList();
        Assert.NotEmpty(scripts);

        Assert.All(scripts, script =>
        {
            var syntax = ProcessRunner.Run("bash", ["-n", script[0]], _scratch, TimeSpan.FromMinutes(1));
            Assert.True(syntax.ExitCode == 0, $"{script[1]}: {syntax.StdErr}");
            var lint = ProcessRunner.Run("shellcheck", ["--severity=warning", "--shell=bash", script[0]], _scratch, TimeSpan.FromMinutes(1));
            Assert.True(lint.ExitCode == 0, $"{script[1]}:\n{lint.StdOut}");
        });
    }

    [FactWhenOnPath("terraform")]
    public void TheBootstrapScriptsRunOnlyOnNodeA()
    {
        var nodeA = File.ReadAllText(Render("ravendb-node-a"));
        var nodeB = File.ReadAllText(Render("ravendb-node-b"));

        Assert.Contains("/admin/cluster/node", nodeA, StringComparison.Ordinal);
        Assert.Contains("replicationFactor=3", nodeA, StringComparison.Ordinal);
        Assert.DoesNotContain("/admin/cluster/node", nodeB, StringComparison.Ordinal);
    }

    [FactWhenOnPath("terraform")]
    public void TheServiceGetsItsConfigurationOnlyFromEnvironmentVariables()
    {
        var syncApi = File.ReadAllText(Render("syncapi-ecr"));

        Assert.Contains("Raven__Urls__0=https://a.kobo-sync.internal:443", syncApi, StringComparison.Ordinal);
        Assert.Contains("Raven__Urls__2=https://c.kobo-sync.internal:443", syncApi, StringComparison.Ordinal);
        Assert.Contains("--env-file", syncApi, StringComparison.Ordinal);
        Assert.DoesNotContain("appsettings", syncApi, StringComparison.Ordinal);
    }

    private string Render(string caseName)
    {
        var (template, values) = Cases[caseName];
        var root = Path.Combine(_scratch, caseName);
        Directory.CreateDirectory(root);
        var templatePath = Repository.PathOf($"{Modules}/{template}").Replace("\\", "/", StringComparison.Ordinal);
        File.WriteAllText(Path.Combine(root, "render.tf"), $$"""
            output "rendered" {
              value = templatefile("{{templatePath}}", {{values}})
            }
            """);

        string[][] steps = [["init", "-input=false", "-no-color"], ["apply", "-auto-approve", "-input=false", "-no-color"]];
        foreach (var step in steps)
        {
            var outcome = ProcessRunner.Run("terraform", step, root, TimeSpan.FromMinutes(1));
            Assert.True(outcome.ExitCode == 0, $"terraform {step[0]} for {caseName}: {outcome.StdOut}{outcome.StdErr}");
        }

        var output = ProcessRunner.Run("terraform", ["output", "-raw", "rendered"], root, TimeSpan.FromMinutes(1));
        Assert.True(output.ExitCode == 0, output.StdErr);
        var rendered = Path.Combine(root, "cloud-config.yaml");
        File.WriteAllText(rendered, output.StdOut);
        return rendered;
    }

    private static string RavenDbValues(string tag, bool bootstrap) => $$"""
        {
          node_tag                       = "{{tag}}"
          node_host                      = "{{tag.ToLowerInvariant()}}.kobo-sync.internal"
          is_bootstrap_node              = {{(bootstrap ? "true" : "false")}}
          node_tags                      = ["A", "B", "C"]
          internal_domain                = "kobo-sync.internal"
          database_name                  = "kobo-sync"
          ravendb_version                = "7.2.1"
          ravendb_platform               = "linux-arm64"
          region                         = "us-east-1"
          data_volume_device             = "/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0"
          license_secret_arn             = "arn:aws:secretsmanager:us-east-1:123456789012:secret:kobo-sync/ravendb-license-AbCdEf"
          cluster_certificate_secret_arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:kobo-sync/ravendb-cluster-cert-AbCdEf"
          admin_certificate_secret_arn   = "arn:aws:secretsmanager:us-east-1:123456789012:secret:kobo-sync/ravendb-admin-cert-AbCdEf"
          client_certificate_parameter   = "/kobo-sync/syncapi-client-certificate-public"
        }
        """;

    private static string SyncApiValues(bool fromEcr) => $$"""
        {
          image                         = "{{(fromEcr ? "123456789012.dkr.ecr.us-east-1.amazonaws.com/kobo-sync:1.0.0" : "ghcr.io/example/kobo-sync:1.0.0")}}"
          image_registry                = "{{(fromEcr ? "123456789012.dkr.ecr.us-east-1.amazonaws.com" : "ghcr.io")}}"
          image_from_ecr                = {{(fromEcr ? "true" : "false")}}
          region                        = "us-east-1"
          client_certificate_secret_arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:kobo-sync/syncapi-client-cert-AbCdEf"
          ravendb_urls                  = ["https://a.kobo-sync.internal:443", "https://b.kobo-sync.internal:443", "https://c.kobo-sync.internal:443"]
          database_name                 = "kobo-sync"
          signing_authority             = "https://auth.example.com/"
          container_gid                 = 1654
        }
        """;

    public void Dispose() => Directory.Delete(_scratch, recursive: true);
}
