using System.Text.Json;
using System.Text.RegularExpressions;
using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

public sealed partial class TerraformTests(TerraformTree tree) : IClassFixture<TerraformTree>
{
    private static readonly string[] Profiles = ["budget-arm", "high-perf"];

    [Fact]
    public void EveryTerraformFileParses()
    {
        var onDisk = Directory.GetFiles(Repository.PathOf(TerraformTree.RootPath), "*.tf", SearchOption.AllDirectories);

        Assert.NotEmpty(onDisk);
        Assert.Equal(onDisk.Length, tree.Files.Count);
    }

    [Fact]
    public void TheProfileVariableAcceptsExactlyTheTwoClusterClasses()
    {
        var profile = Assert.Single(tree.Blocks("variable"), v => v.File == "variables.tf" && v.Name == "profile");
        var condition = profile.Body.GetProperty("validation")[0].GetProperty("condition").GetString()!;

        var allowed = QuotedWords().Matches(condition).Select(m => m.Groups[1].Value).Order(StringComparer.Ordinal);

        Assert.Equal(Profiles, allowed);
        Assert.Contains("var.profile", condition, StringComparison.Ordinal);
        Assert.Equal(Profiles, ProfileTable().EnumerateObject().Select(p => p.Name).Order(StringComparer.Ordinal));
    }

    [Theory]
    [InlineData("budget-arm", "m6g.large", "arm64")]
    [InlineData("high-perf", "m5a.8xlarge", "x86_64")]
    public void EachProfileResolvesToTheBenchmarkedDatabaseInstances(string profile, string instanceType, string arch)
    {
        var settings = ProfileTable().GetProperty(profile);

        Assert.Equal(instanceType, settings.GetProperty("ravendb_instance_type").GetString());
        Assert.Equal(arch, settings.GetProperty("ravendb_arch").GetString());
        Assert.Equal("m5a.2xlarge", settings.GetProperty("loadgen_instance_type").GetString());
    }

    [Fact]
    public void TheBudgetProfileRunsTheServiceOnArmAndTheHighPerformanceOneOnX86()
    {
        Assert.Equal("arm64", ProfileTable().GetProperty("budget-arm").GetProperty("syncapi_arch").GetString());
        Assert.StartsWith("m6g.", ProfileTable().GetProperty("budget-arm").GetProperty("syncapi_instance_type").GetString(), StringComparison.Ordinal);
        Assert.Equal("x86_64", ProfileTable().GetProperty("high-perf").GetProperty("syncapi_arch").GetString());
    }

    [Fact]
    public void TheRootModuleSelectsTheProfileByTheVariable()
    {
        Assert.Equal("${local.profiles[var.profile]}", tree.Locals(string.Empty)["selected"].GetString());
    }

    [Fact]
    public void ThereAreExactlyThreeRavenDbNodes()
    {
        var tags = tree.Locals("modules/ravendb")["node_tags"].EnumerateArray().Select(t => t.GetString());
        Assert.Equal(["A", "B", "C"], tags);

        var nodes = tree.Resources("aws_instance").Where(r => TerraformTree.ModuleOf(r.File) == "modules/ravendb").ToList();
        var node = Assert.Single(nodes);
        Assert.Equal("${length(local.node_tags)}", node.Text("count"));

        var call = Assert.Single(tree.Blocks("module"), m => m.Text("source") == "./modules/ravendb");
        Assert.False(call.Has("count") || call.Has("for_each"), "the RavenDB module must be instantiated once");
    }

    [Fact]
    public void SecurityGroupsDeclareNoInlineRulesSoEveryRuleIsCheckedHere()
    {
        Assert.NotEmpty(tree.Resources("aws_security_group"));
        Assert.All(tree.Resources("aws_security_group"), sg =>
        {
            Assert.False(sg.Has("ingress"), $"{sg} has inline ingress");
            Assert.False(sg.Has("egress"), $"{sg} has inline egress");
        });
        Assert.Empty(tree.Resources("aws_security_group_rule"));
    }

    [Fact]
    public void OnlyTheLoadBalancerAcceptsTrafficFromTheInternetAndOnlyOnHttpAndHttps()
    {
        var open = IngressRules().Where(r => r.Text("cidr_ipv4") == "0.0.0.0/0" || r.Text("cidr_ipv6") == "::/0").ToList();

        Assert.NotEmpty(open);
        Assert.All(open, rule =>
        {
            Assert.Equal("modules/syncapi", TerraformTree.ModuleOf(rule.File));
            Assert.Matches(@"aws_security_group\.(lb|alb)\.id", rule.Text("security_group_id"));
            Assert.Contains(Port(rule, "from_port"), new[] { 80, 443 });
            Assert.Equal(Port(rule, "from_port"), Port(rule, "to_port"));
        });
    }

    [Fact]
    public void TheDatabaseIsReachableOnlyFromTheTiersThatNeedIt()
    {
        var databaseRules = IngressRules().Where(r => TerraformTree.ModuleOf(r.File) == "modules/ravendb").ToList();

        Assert.NotEmpty(databaseRules);
        Assert.All(databaseRules, rule =>
        {
            var port = Port(rule, "from_port");
            if (rule.Has("referenced_security_group_id"))
            {
                Assert.Contains(port, new[] { 443, 38888 });
            }
            else
            {
                // The only address-based rule is SSH from the operators' own networks.
                Assert.Equal(22, port);
                Assert.Equal("${each.value}", rule.Text("cidr_ipv4"));
                Assert.Contains("var.admin_cidrs", rule.Text("for_each"), StringComparison.Ordinal);
            }
        });
        Assert.All(
            databaseRules.Where(r => Port(r, "from_port") == 38888),
            rule => Assert.Equal(rule.Text("security_group_id"), rule.Text("referenced_security_group_id")));
    }

    [Fact]
    public void AdminNetworksCanNeverBeTheWholeInternet()
    {
        var adminCidrs = tree.Blocks("variable").Where(v => v.Name == "admin_cidrs").ToList();

        Assert.NotEmpty(adminCidrs);
        Assert.All(adminCidrs, v =>
        {
            var conditions = v.Body.GetProperty("validation").EnumerateArray().Select(c => c.GetProperty("condition").GetString()).ToList();
            // Either the literal world-open ranges or any "/0" prefix must be refused.
            Assert.Contains(conditions, c => c!.Contains("0.0.0.0/0", StringComparison.Ordinal) || c.Contains("\"/0\"", StringComparison.Ordinal));
        });
    }

    [Fact]
    public void EveryVariableEverywhereHasADescriptionAndAType()
    {
        var variables = tree.Blocks("variable").ToList();

        Assert.True(variables.Count > 10, $"only {variables.Count} variables found");
        Assert.All(variables, v =>
        {
            Assert.False(string.IsNullOrWhiteSpace(v.Text("description")), $"{v} has no description");
            Assert.True(v.Has("type"), $"{v} has no type");
        });
    }

    [Fact]
    public void SecretsArePassedAsSecretsManagerReferencesWithNoDefault()
    {
        var secretInputs = tree.Blocks("variable").Where(v => v.Name.EndsWith("_secret_arn", StringComparison.Ordinal)).ToList();

        Assert.Contains(secretInputs, v => v.Name.Contains("license", StringComparison.Ordinal));
        Assert.All(secretInputs, v => Assert.False(v.Has("default"), $"{v} has a default"));
        Assert.DoesNotContain(tree.Blocks("variable"), v => SecretName().IsMatch(v.Name) && v.Has("default"));
    }

    [Fact]
    public void EveryOutputIsDescribedAndTheOperatorsOutputsExist()
    {
        var outputs = tree.Blocks("output").ToList();

        Assert.All(outputs, o => Assert.False(string.IsNullOrWhiteSpace(o.Text("description")), $"{o} has no description"));
        var rootOutputs = outputs.Where(o => TerraformTree.ModuleOf(o.File).Length == 0).Select(o => o.Name).ToHashSet();
        Assert.Subset(rootOutputs, new HashSet<string> { "ravendb_node_urls", "service_rest_endpoint", "service_grpc_endpoint", "loadgen_address" });
    }

    [Fact]
    public void TheServiceTierHasAnHttpAndAGrpcTargetGroupBehindOneLoadBalancer()
    {
        var groups = tree.Resources("aws_lb_target_group").ToList();

        var grpc = Assert.Single(groups, g => g.Text("protocol_version") == "GRPC");
        var rest = Assert.Single(groups, g => g != grpc);
        Assert.Equal(5081, Port(grpc, "port"));
        Assert.Equal(5080, Port(rest, "port"));
        Assert.Equal("/healthz/ready", rest.Body.GetProperty("health_check")[0].GetProperty("path").GetString());
        Assert.Single(tree.Resources("aws_lb"));
        Assert.Single(tree.Resources("aws_autoscaling_group"));
    }

    [Fact]
    public void ProvidersAndTerraformArePinned()
    {
        var settings = Assert.Single(tree.Files, f => f.Value.TryGetProperty("terraform", out _)).Value.GetProperty("terraform")[0];
        Assert.False(string.IsNullOrWhiteSpace(settings.GetProperty("required_version").GetString()));
        var providers = settings.GetProperty("required_providers")[0];
        Assert.All(providers.EnumerateObject(), p => Assert.False(string.IsNullOrWhiteSpace(p.Value.GetProperty("version").GetString()), p.Name));
        Assert.True(providers.TryGetProperty("aws", out _));
    }

    [FactWhenOnPath("terraform")]
    public void EveryFileIsCanonicallyFormatted()
    {
        var outcome = ProcessRunner.Run("terraform", ["fmt", "-check", "-recursive", "-list=true"], Repository.PathOf(TerraformTree.RootPath), TimeSpan.FromMinutes(1));

        Assert.True(outcome.ExitCode == 0, $"not formatted: {outcome.StdOut}{outcome.StdErr}");
    }

    private JsonElement ProfileTable() => tree.Locals(string.Empty)["profiles"];

    private IEnumerable<TerraformTree.Block> IngressRules() => tree.Resources("aws_vpc_security_group_ingress_rule");

    private static int Port(TerraformTree.Block rule, string attribute) =>
        rule.Body.GetProperty(attribute) is { ValueKind: JsonValueKind.Number } n ? n.GetInt32() : throw new Xunit.Sdk.XunitException($"{rule} {attribute} is not a literal port");

    [GeneratedRegex("\"([^\"]+)\"")]
    private static partial Regex QuotedWords();

    [GeneratedRegex("(password|secret|token|license|private_key)", RegexOptions.IgnoreCase)]
    private static partial Regex SecretName();
}
