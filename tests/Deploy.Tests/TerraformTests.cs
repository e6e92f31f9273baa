using System.Text.Json;
using System.Text.RegularExpressions;
using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

public sealed partial class TerraformTests(TerraformTree tree) : IClassFixture<TerraformTree>
{
    private const string DatabaseModule = "modules/postgres";

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
    [InlineData("budget-arm", "r6g.large", "arm64", 16384)]
    [InlineData("high-perf", "r6i.8xlarge", "x86_64", 262144)]
    public void EachProfileResolvesToMemoryOptimisedDatabaseInstances(string profile, string instanceType, string arch, int memoryMb)
    {
        var settings = ProfileTable().GetProperty(profile);

        Assert.Equal(instanceType, settings.GetProperty("database_instance_type").GetString());
        Assert.Equal(arch, settings.GetProperty("database_arch").GetString());
        Assert.Equal(memoryMb, settings.GetProperty("database_memory_mb").GetInt32());
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
    public void ThereAreExactlyThreeDatabaseNodesEachInItsOwnPlacementSubnetAtAFixedAddress()
    {
        var names = tree.Locals(DatabaseModule)["node_names"].EnumerateArray().Select(t => t.GetString());
        Assert.Equal(["a", "b", "c"], names);

        var node = Assert.Single(tree.Resources("aws_instance"), r => TerraformTree.ModuleOf(r.File) == DatabaseModule);
        Assert.Equal("${length(local.node_names)}", node.Text("count"));
        Assert.Equal("${var.placement_subnet_ids[count.index]}", node.Text("subnet_id"));
        Assert.Equal("${local.node_ips[count.index]}", node.Text("private_ip"));
        Assert.Equal("${aws_security_group.database.id}", Assert.Single(node.Body.GetProperty("vpc_security_group_ids").EnumerateArray()).GetString());
        Assert.Contains("/aws/service/debian/release/12/", Assert.Single(tree.Blocks("data", "aws_ssm_parameter"), d => TerraformTree.ModuleOf(d.File) == DatabaseModule).Text("name"), StringComparison.Ordinal);

        var volume = Assert.Single(tree.Resources("aws_ebs_volume"), r => TerraformTree.ModuleOf(r.File) == DatabaseModule);
        Assert.Equal("${var.placement_availability_zones[count.index]}", volume.Text("availability_zone"));
        Assert.True(volume.Body.GetProperty("encrypted").GetBoolean());

        var call = Assert.Single(tree.Blocks("module"), m => m.Text("source") == $"./{DatabaseModule}");
        Assert.False(call.Has("count") || call.Has("for_each"), "the database module must be instantiated once");
        Assert.Equal("${module.network.placement_subnet_ids}", call.Text("placement_subnet_ids"));
        Assert.Equal("${module.network.placement_subnet_cidrs}", call.Text("placement_subnet_cidrs"));
        Assert.Equal("${module.network.placement_availability_zones}", call.Text("placement_availability_zones"));
    }

    [Fact]
    public void ByDefaultTheNodesArePlacedInThreeDistinctAvailabilityZones()
    {
        var network = tree.Locals("modules/network");
        Assert.Equal(3, network["zone_count"].GetInt32());
        Assert.Equal("${slice(data.aws_availability_zones.available.names, 0, local.zone_count)}", network["azs"].GetString());

        var privateSubnets = Assert.Single(tree.Resources("aws_subnet"), s => s.Name == "private");
        Assert.Equal("${local.zone_count}", privateSubnets.Text("count"));
        Assert.Equal("${local.azs[count.index]}", privateSubnets.Text("availability_zone"));

        var outputs = tree.Blocks("output").Where(o => TerraformTree.ModuleOf(o.File) == "modules/network").ToDictionary(o => o.Name, StringComparer.Ordinal);
        Assert.Equal("${var.single_az ? [for i in range(3) : aws_subnet.private[0].id] : aws_subnet.private[*].id}", outputs["placement_subnet_ids"].Text("value"));
        Assert.Equal("${var.single_az ? [for i in range(3) : local.azs[0]] : local.azs}", outputs["placement_availability_zones"].Text("value"));
        Assert.Equal("${var.single_az ? [for i in range(3) : aws_subnet.private[0].cidr_block] : aws_subnet.private[*].cidr_block}", outputs["placement_subnet_cidrs"].Text("value"));

        var singleAz = Assert.Single(tree.Blocks("variable"), v => v.File == "variables.tf" && v.Name == "single_az");
        Assert.False(singleAz.Body.GetProperty("default").GetBoolean());
    }

    [Fact]
    public void TheServiceIsGivenTheThreeDatabaseHostsAndOnlyItsOwnSecrets()
    {
        var call = Assert.Single(tree.Blocks("module"), m => m.Text("source") == "./modules/syncapi");
        Assert.Equal($"${{module.postgres.postgres_hosts}}", call.Text("postgres_hosts"));
        Assert.Equal("${var.postgres_app_password_secret_arn}", call.Text("app_password_secret_arn"));

        var hosts = Assert.Single(tree.Blocks("output"), o => TerraformTree.ModuleOf(o.File) == DatabaseModule && o.Name == "postgres_hosts");
        Assert.Equal("${[for ip in local.node_ips : \"${ip}:${local.postgres_port}\"]}", hosts.Text("value"));
        Assert.Equal(5432, tree.Locals(DatabaseModule)["postgres_port"].GetInt32());

        var serviceSecrets = Assert.Single(tree.Blocks("data", "aws_iam_policy_document"), d => TerraformTree.ModuleOf(d.File) == "modules/syncapi" && d.Name != "assume_ec2");
        var resources = serviceSecrets.Body.GetProperty("statement")[0].GetProperty("resources").EnumerateArray().Select(r => r.GetString());
        Assert.Equal(["${var.app_password_secret_arn}", "${var.signing_key_secret_arn}", "${var.cursor_key_secret_arn}"], resources);

        // The database nodes read the three database passwords and none of the service's keys.
        var nodeSecrets = Assert.Single(tree.Blocks("data", "aws_iam_policy_document"), d => TerraformTree.ModuleOf(d.File) == DatabaseModule && d.Name != "assume_ec2");
        Assert.Equal(
            ["${var.superuser_password_secret_arn}", "${var.replication_password_secret_arn}", "${var.app_password_secret_arn}"],
            nodeSecrets.Body.GetProperty("statement")[0].GetProperty("resources").EnumerateArray().Select(r => r.GetString()));
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
        var databaseRules = IngressRules().Where(r => TerraformTree.ModuleOf(r.File) == DatabaseModule).ToList();
        const string Self = "${aws_security_group.database.id}";

        Assert.All(databaseRules, rule => Assert.Equal(Self, rule.Text("security_group_id")));
        var bySource = databaseRules.Where(r => r.Has("referenced_security_group_id"))
            .Select(r => $"{Port(r, "from_port")}-{Port(r, "to_port")} from {r.Text("referenced_security_group_id")}")
            .Order(StringComparer.Ordinal);
        Assert.Equal(
            [
                $"2379-2380 from {Self}",
                $"5432-5432 from {Self}",
                "5432-5432 from ${var.loadgen_security_group_id}",
                "5432-5432 from ${var.syncapi_security_group_id}",
                $"8008-8008 from {Self}",
            ],
            bySource);

        // The only address-based rule is SSH from the operators' own networks.
        var byAddress = Assert.Single(databaseRules, r => !r.Has("referenced_security_group_id"));
        Assert.Equal(22, Port(byAddress, "from_port"));
        Assert.Equal(22, Port(byAddress, "to_port"));
        Assert.Equal("${each.value}", byAddress.Text("cidr_ipv4"));
        Assert.Contains("var.admin_cidrs", byAddress.Text("for_each"), StringComparison.Ordinal);

        var call = Assert.Single(tree.Blocks("module"), m => m.Text("source") == $"./{DatabaseModule}");
        Assert.Equal("${module.syncapi.security_group_id}", call.Text("syncapi_security_group_id"));
        Assert.Equal("${module.loadgen.security_group_id}", call.Text("loadgen_security_group_id"));
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

        Assert.Equal(
            [
                "postgres_app_password_secret_arn", "postgres_replication_password_secret_arn", "postgres_superuser_password_secret_arn",
                "syncapi_cursor_key_secret_arn", "syncapi_signing_key_secret_arn",
            ],
            secretInputs.Where(v => v.File == "variables.tf").Select(v => v.Name).Order(StringComparer.Ordinal));
        Assert.All(secretInputs, v => Assert.False(v.Has("default"), $"{v} has a default"));
        Assert.DoesNotContain(tree.Blocks("variable"), v => SecretName().IsMatch(v.Name) && v.Has("default"));
    }

    [Fact]
    public void EveryOutputIsDescribedAndTheOperatorsOutputsExist()
    {
        var outputs = tree.Blocks("output").ToList();

        Assert.All(outputs, o => Assert.False(string.IsNullOrWhiteSpace(o.Text("description")), $"{o} has no description"));
        var rootOutputs = outputs.Where(o => TerraformTree.ModuleOf(o.File).Length == 0).Select(o => o.Name).ToHashSet();
        Assert.Subset(rootOutputs, new HashSet<string> { "database_nodes", "database_hosts", "database_data_volume_ids", "service_rest_endpoint", "service_grpc_endpoint", "loadgen_address" });
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
    public void TheLoadBalancerAnswers404ForMetricsBeforeAnyForwardingRule()
    {
        var rules = tree.Resources("aws_lb_listener_rule").ToList();

        var metrics = Assert.Single(rules, r => r.Body.GetProperty("condition")[0].GetProperty("path_pattern")[0]
            .GetProperty("values").EnumerateArray().Any(v => v.GetString() == "/metrics"));
        var action = metrics.Body.GetProperty("action")[0];
        Assert.Equal("fixed-response", action.GetProperty("type").GetString());
        Assert.Equal("404", action.GetProperty("fixed_response")[0].GetProperty("status_code").GetString());
        Assert.All(rules.Where(r => r != metrics), r => Assert.True(
            Priority(metrics) < Priority(r), $"{r} is evaluated before the /metrics rule"));
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

    private static int Priority(TerraformTree.Block rule) => rule.Body.GetProperty("priority").GetInt32();

    private static int Port(TerraformTree.Block rule, string attribute) =>
        rule.Body.GetProperty(attribute) is { ValueKind: JsonValueKind.Number } n ? n.GetInt32() : throw new Xunit.Sdk.XunitException($"{rule} {attribute} is not a literal port");

    [GeneratedRegex("\"([^\"]+)\"")]
    private static partial Regex QuotedWords();

    [GeneratedRegex("(password|secret|token|license|private_key)", RegexOptions.IgnoreCase)]
    private static partial Regex SecretName();
}
