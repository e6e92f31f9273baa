using System.Text.Json;
using System.Text.RegularExpressions;
using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

public sealed partial class TerraformTests(TerraformTree tree) : IClassFixture<TerraformTree>
{
    private const string DatabaseModule = "modules/postgres";

    [Fact]
    public void EveryTerraformFileParses()
    {
        var onDisk = Directory.GetFiles(Repository.PathOf(TerraformTree.RootPath), "*.tf", SearchOption.AllDirectories);

        Assert.NotEmpty(onDisk);
        Assert.Equal(onDisk.Length, tree.Files.Count);
    }

    [Fact]
    public void TheProfileVariableAcceptsExactlyTheProfilesTheTableDefines()
    {
        var profile = RootVariable("profile");
        var condition = profile.Body.GetProperty("validation")[0].GetProperty("condition").GetString()!;

        var allowed = QuotedWords().Matches(condition).Select(m => m.Groups[1].Value).Order(StringComparer.Ordinal);

        Assert.Contains("var.profile", condition, StringComparison.Ordinal);
        Assert.Equal(ProfileTable().EnumerateObject().Select(p => p.Name).Order(StringComparer.Ordinal), allowed);
    }

    /// <summary>A key the root module reads from the selected profile and a profile lacks fails the plan for that profile only.</summary>
    [Fact]
    public void EveryProfileHasEverySettingTheRootModuleReadsFromIt()
    {
        var read = Directory.GetFiles(Repository.PathOf(TerraformTree.RootPath), "*.tf")
            .SelectMany(f => SelectedSetting().Matches(File.ReadAllText(f)).Select(m => m.Groups[1].Value))
            .ToHashSet(StringComparer.Ordinal);

        Assert.NotEmpty(read);
        foreach (var profile in ProfileTable().EnumerateObject())
        {
            var keys = profile.Value.EnumerateObject().Select(k => k.Name).ToHashSet(StringComparer.Ordinal);
            Assert.True(read.IsSubsetOf(keys), $"{profile.Name} lacks {string.Join(", ", read.Except(keys))}");
            Assert.True(keys.IsSubsetOf(read), $"{profile.Name} sets {string.Join(", ", keys.Except(read))}, which nothing reads");
        }
    }

    /// <summary>Each tier boots an image of its instance type's architecture: Graviton types (a "g" after the generation, m6g, r6gd) are arm64.</summary>
    [Fact]
    public void EachTiersArchitectureIsThatOfItsInstanceType()
    {
        foreach (var profile in ProfileTable().EnumerateObject())
        {
            foreach (var tier in new[] { "database", "syncapi", "loadgen" })
            {
                var type = profile.Value.GetProperty($"{tier}_instance_type").GetString()!;
                var attributes = InstanceFamily().Match(type);
                Assert.True(attributes.Success, $"{profile.Name}: {type} is not an EC2 instance type");

                var expected = attributes.Groups["attributes"].Value.Contains('g', StringComparison.Ordinal) ? "arm64" : "x86_64";
                Assert.True(expected == profile.Value.GetProperty($"{tier}_arch").GetString(), $"{profile.Name}: {tier} on {type} needs {expected}");
            }
        }
    }

    /// <summary>
    /// The database nodes are memory-optimised (the r family: 8 GiB per vCPU), and the memory the
    /// large-data settings take their shares of is the instance's own: a share of memory the node does
    /// not have would not start, one of less would leave the page cache idle.
    /// </summary>
    [Fact]
    public void EachProfilesDatabaseMemoryIsThatOfItsMemoryOptimisedInstanceType()
    {
        foreach (var profile in ProfileTable().EnumerateObject())
        {
            var type = profile.Value.GetProperty("database_instance_type").GetString()!;
            var match = InstanceFamily().Match(type);
            Assert.True(match.Success && match.Groups["family"].Value == "r", $"{profile.Name}: {type} is not memory-optimised");

            Assert.Equal(VirtualCpus(type) * 8 * 1024, profile.Value.GetProperty("database_memory_mb").GetInt32());
        }
    }

    [Fact]
    public void EachProfilesServiceTierStartsWithinTheBoundsItScalesBetween()
    {
        foreach (var profile in ProfileTable().EnumerateObject())
        {
            var (min, desired, max) = (profile.Value.GetProperty("syncapi_min_size").GetInt32(), profile.Value.GetProperty("syncapi_desired_size").GetInt32(), profile.Value.GetProperty("syncapi_max_size").GetInt32());
            Assert.True(1 <= min && min <= desired && desired <= max, $"{profile.Name}: min {min}, desired {desired}, max {max}");
        }
    }

    /// <summary>
    /// The database module's placement of its nodes, evaluated by Terraform with three subnets spread over
    /// three zones and with the first subnet three times (single_az): node i in subnet i at an address of
    /// that subnet, three distinct addresses either way, and each node's data volume in the node's zone
    /// (a volume attaches only in its own zone).
    /// </summary>
    [TheoryWhenOnPath("terraform")]
    [InlineData(false)]
    [InlineData(true)]
    public void EachDatabaseNodeSitsInItsPlacementSubnetAtAnAddressOfItsOwnWithItsVolumeInItsZone(bool singleAz)
    {
        string[] subnets = singleAz ? ["subnet-1", "subnet-1", "subnet-1"] : ["subnet-1", "subnet-2", "subnet-3"];
        string[] cidrs = singleAz ? ["10.40.0.0/20", "10.40.0.0/20", "10.40.0.0/20"] : ["10.40.0.0/20", "10.40.16.0/20", "10.40.32.0/20"];
        string[] zones = singleAz ? ["zone-1", "zone-1", "zone-1"] : ["zone-1", "zone-2", "zone-3"];
        var node = Assert.Single(tree.Resources("aws_instance"), r => TerraformTree.ModuleOf(r.File) == DatabaseModule);
        var volume = Assert.Single(tree.Resources("aws_ebs_volume"), r => TerraformTree.ModuleOf(r.File) == DatabaseModule);
        var hosts = Assert.Single(tree.Blocks("output"), o => TerraformTree.ModuleOf(o.File) == DatabaseModule && o.Name == "postgres_hosts");

        var outputs = TerraformEvaluation.Outputs($$"""
            variable "placement_subnet_ids" { default = {{Json(subnets)}} }
            variable "placement_subnet_cidrs" { default = {{Json(cidrs)}} }
            variable "placement_availability_zones" { default = {{Json(zones)}} }
            variable "internal_domain" { default = "kobo-sync.internal" }
            variable "cluster_name" { default = "kobo-sync" }
            {{TerraformEvaluation.Locals(tree.Locals(DatabaseModule))}}
            output "nodes" { value = {{TerraformEvaluation.StandIn(node, "subnet_id", "private_ip")}} }
            output "volumes" { value = {{TerraformEvaluation.StandIn(volume, "availability_zone")}} }
            output "postgres_hosts" { value = {{TerraformEvaluation.Expression(hosts.Body.GetProperty("value"))}} }
            """);

        var nodes = outputs["nodes"].EnumerateArray().ToList();
        Assert.Equal(3, nodes.Count); // etcd and Patroni are configured for three members
        var addresses = nodes.Select(n => n.GetProperty("private_ip").GetString()!).ToList();
        Assert.Equal(3, addresses.Distinct(StringComparer.Ordinal).Count());
        for (var i = 0; i < nodes.Count; i++)
        {
            Assert.Equal(subnets[i], nodes[i].GetProperty("subnet_id").GetString());
            Assert.True(System.Net.IPNetwork.Parse(cidrs[i]).Contains(System.Net.IPAddress.Parse(addresses[i])), $"node {i} at {addresses[i]} is outside {cidrs[i]}");
            Assert.Equal(zones[i], outputs["volumes"][i].GetProperty("availability_zone").GetString());
        }

        // The service's host list is every node, on the port the database lets the service reach.
        var servicePort = Assert.Single(IngressRules(), r => TerraformTree.ModuleOf(r.File) == DatabaseModule && r.Text("referenced_security_group_id") == "${var.syncapi_security_group_id}");
        Assert.Equal(addresses.Select(a => $"{a}:{Port(servicePort, "from_port")}"), outputs["postgres_hosts"].EnumerateArray().Select(h => h.GetString()));
    }

    [Fact]
    public void TheDatabaseModuleIsInstantiatedOnceOnTheNetworksPlacementWithEncryptedVolumesOnDebian12()
    {
        var call = Assert.Single(tree.Blocks("module"), m => m.Text("source") == $"./{DatabaseModule}");
        Assert.False(call.Has("count") || call.Has("for_each"), "the database module must be instantiated once");
        foreach (var placement in new[] { "placement_subnet_ids", "placement_subnet_cidrs", "placement_availability_zones" })
        {
            Assert.True(Refers(call.Text(placement), $"module.network.{placement}"), $"the database module's {placement} is not the network's");
        }

        var node = Assert.Single(tree.Resources("aws_instance"), r => TerraformTree.ModuleOf(r.File) == DatabaseModule);
        Assert.True(Refers(Assert.Single(node.Body.GetProperty("vpc_security_group_ids").EnumerateArray()).GetString(), "aws_security_group.database"), "a node must be in the database security group alone");
        Assert.Contains("/aws/service/debian/release/12/", Assert.Single(tree.Blocks("data", "aws_ssm_parameter"), d => TerraformTree.ModuleOf(d.File) == DatabaseModule).Text("name"), StringComparison.Ordinal);
        var volume = Assert.Single(tree.Resources("aws_ebs_volume"), r => TerraformTree.ModuleOf(r.File) == DatabaseModule);
        Assert.True(volume.Body.GetProperty("encrypted").GetBoolean());
    }

    /// <summary>
    /// The network's placement outputs, evaluated by Terraform from its own locals and subnets (in a region
    /// of four zones): by default three distinct private subnets in three distinct zones, each entry's
    /// zone and CIDR those of its subnet; with single_az, the first subnet, its zone and CIDR three times.
    /// </summary>
    [FactWhenOnPath("terraform")]
    public void ByDefaultTheNodesArePlacedInThreeDistinctAvailabilityZonesAndSingleAzPutsThemAllInTheFirst()
    {
        Assert.False(RootVariable("single_az").Body.GetProperty("default").GetBoolean());

        var spread = Placement(singleAz: false);
        Assert.Equal(3, spread.SubnetIds.Distinct(StringComparer.Ordinal).Count());
        Assert.Equal(3, spread.Zones.Distinct(StringComparer.Ordinal).Count());
        for (var i = 0; i < 3; i++)
        {
            var subnet = spread.Subnets.Single(s => s.GetProperty("id").GetString() == spread.SubnetIds[i]);
            Assert.Equal(subnet.GetProperty("availability_zone").GetString(), spread.Zones[i]);
            Assert.Equal(subnet.GetProperty("cidr_block").GetString(), spread.Cidrs[i]);
        }

        var single = Placement(singleAz: true);
        var first = single.Subnets[0];
        Assert.Equal(Enumerable.Repeat(first.GetProperty("id").GetString(), 3), single.SubnetIds);
        Assert.Equal(Enumerable.Repeat(first.GetProperty("availability_zone").GetString(), 3), single.Zones);
        Assert.Equal(Enumerable.Repeat(first.GetProperty("cidr_block").GetString(), 3), single.Cidrs);
    }

    [Fact]
    public void TheServiceIsGivenTheThreeDatabaseHostsAndOnlyItsOwnSecrets()
    {
        var call = Assert.Single(tree.Blocks("module"), m => m.Text("source") == "./modules/syncapi");
        Assert.True(Refers(call.Text("postgres_hosts"), "module.postgres.postgres_hosts"), "the service's hosts are not the database module's");
        Assert.True(Refers(call.Text("app_password_secret_arn"), "var.postgres_app_password_secret_arn"), "the service's database password is not the application role's");

        var serviceSecrets = Assert.Single(tree.Blocks("data", "aws_iam_policy_document"), d => TerraformTree.ModuleOf(d.File) == "modules/syncapi" && d.Name != "assume_ec2");
        var resources = serviceSecrets.Body.GetProperty("statement")[0].GetProperty("resources").EnumerateArray().Select(r => r.GetString()).Order(StringComparer.Ordinal);
        Assert.Equal(["${var.app_password_secret_arn}", "${var.cursor_key_secret_arn}", "${var.signing_key_secret_arn}"], resources);

        // The database nodes read the three database passwords and none of the service's keys.
        var nodeSecrets = Assert.Single(tree.Blocks("data", "aws_iam_policy_document"), d => TerraformTree.ModuleOf(d.File) == DatabaseModule && d.Name == "read_secrets");
        Assert.Equal(
            ["${var.app_password_secret_arn}", "${var.replication_password_secret_arn}", "${var.superuser_password_secret_arn}"],
            nodeSecrets.Body.GetProperty("statement")[0].GetProperty("resources").EnumerateArray().Select(r => r.GetString()).Order(StringComparer.Ordinal));
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

        // The only address-based rules: SSH from the operators' own networks, and the scrapes of
        // Patroni and the exporters from the Prometheus servers' networks.
        var byAddress = databaseRules.Where(r => !r.Has("referenced_security_group_id")).ToList();
        Assert.Equal(2, byAddress.Count);
        var ssh = Assert.Single(byAddress, r => r.Text("for_each")?.Contains("var.admin_cidrs", StringComparison.Ordinal) == true);
        Assert.Equal(22, Port(ssh, "from_port"));
        Assert.Equal(22, Port(ssh, "to_port"));
        Assert.Equal("${each.value}", ssh.Text("cidr_ipv4"));
        var scrapes = Assert.Single(byAddress, r => r.Text("for_each")?.Contains("var.monitoring_cidrs", StringComparison.Ordinal) == true);
        Assert.Contains("[8008, 9100, 9187]", scrapes.Text("for_each"), StringComparison.Ordinal);
        Assert.Equal("${each.value[0]}", scrapes.Text("cidr_ipv4"));
        Assert.Equal("${each.value[1]}", scrapes.Text("from_port"));
        Assert.Equal("${each.value[1]}", scrapes.Text("to_port"));

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

    /// <summary>
    /// A secret reaches a machine only as a Secrets Manager ARN that the machine resolves at boot: no
    /// variable anywhere takes a secret's value or defaults one, and every secret the root takes is
    /// handed on to a module.
    /// </summary>
    [Fact]
    public void SecretsArePassedAsSecretsManagerReferencesWithNoDefault()
    {
        var secretInputs = tree.Blocks("variable").Where(v => SecretName().IsMatch(v.Name)).ToList();

        Assert.NotEmpty(secretInputs);
        Assert.All(secretInputs, v => Assert.True(v.Name.EndsWith("_secret_arn", StringComparison.Ordinal), $"{v} takes a secret's value, not its ARN"));
        Assert.All(secretInputs, v => Assert.False(v.Has("default"), $"{v} has a default"));

        var handedOn = tree.Blocks("module").SelectMany(m => m.Body.EnumerateObject()).Select(a => a.Value.ToString()).ToList();
        Assert.All(secretInputs.Where(v => v.File == "variables.tf"), v => Assert.True(
            handedOn.Any(a => Refers(a, $"var.{v.Name}")), $"{v} reaches no module"));
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

    private TerraformTree.Block RootVariable(string name) => Assert.Single(tree.Blocks("variable"), v => v.File == "variables.tf" && v.Name == name);

    private sealed record NetworkPlacement(List<JsonElement> Subnets, List<string> SubnetIds, List<string> Cidrs, List<string> Zones);

    /// <summary>The network module's placement outputs for <paramref name="singleAz"/>, from its own locals and private subnets.</summary>
    private NetworkPlacement Placement(bool singleAz)
    {
        const string Network = "modules/network";
        const string Zones = "data.aws_availability_zones.available";
        const string PrivateSubnets = "aws_subnet.private";
        var outputs = tree.Blocks("output").Where(o => TerraformTree.ModuleOf(o.File) == Network).ToDictionary(o => o.Name, o => TerraformEvaluation.Expression(o.Body.GetProperty("value")), StringComparer.Ordinal);
        var subnets = Assert.Single(tree.Resources("aws_subnet"), s => TerraformTree.ModuleOf(s.File) == Network && s.Name == "private");

        var hcl = $$"""
            variable "single_az" { default = {{(singleAz ? "true" : "false")}} }
            variable "vpc_cidr" { default = {{TerraformEvaluation.Expression(RootVariable("vpc_cidr").Body.GetProperty("default"))}} }
            locals {
              standin_zones = { names = ["zone-1", "zone-2", "zone-3", "zone-4"] }
              standin_private_subnets = {{TerraformEvaluation.StandIn(subnets, "availability_zone", "cidr_block")}}
            }
            {{TerraformEvaluation.Locals(tree.Locals(Network))}}
            output "subnets" { value = local.standin_private_subnets }
            output "ids" { value = {{outputs["placement_subnet_ids"]}} }
            output "cidrs" { value = {{outputs["placement_subnet_cidrs"]}} }
            output "zones" { value = {{outputs["placement_availability_zones"]}} }
            """;
        var values = TerraformEvaluation.Outputs(TerraformEvaluation.Redirect(TerraformEvaluation.Redirect(hcl, Zones, "local.standin_zones"), PrivateSubnets, "local.standin_private_subnets"));

        List<string> Strings(string name) => [.. values[name].EnumerateArray().Select(v => v.GetString()!)];
        return new NetworkPlacement([.. values["subnets"].EnumerateArray()], Strings("ids"), Strings("cidrs"), Strings("zones"));
    }

    /// <summary>Whether <paramref name="expression"/> refers to <paramref name="address"/> (and not merely to a longer name it begins).</summary>
    private static bool Refers(string? expression, string address) =>
        expression is not null && Regex.IsMatch(expression, $@"(?<![\w.]){Regex.Escape(address)}(?![\w])");

    /// <summary>vCPUs of an EC2 size: large 2, xlarge 4, Nxlarge 4N.</summary>
    private static int VirtualCpus(string instanceType)
    {
        var size = instanceType.Split('.')[1];
        return size switch
        {
            "large" => 2,
            "xlarge" => 4,
            _ when size.EndsWith("xlarge", StringComparison.Ordinal) => 4 * int.Parse(size[..^"xlarge".Length], System.Globalization.CultureInfo.InvariantCulture),
            _ => throw new Xunit.Sdk.XunitException($"{instanceType}: unknown size"),
        };
    }

    private static string Json(string[] values) => JsonSerializer.Serialize(values);

    private IEnumerable<TerraformTree.Block> IngressRules() => tree.Resources("aws_vpc_security_group_ingress_rule");

    private static int Priority(TerraformTree.Block rule) => rule.Body.GetProperty("priority").GetInt32();

    private static int Port(TerraformTree.Block rule, string attribute) =>
        rule.Body.GetProperty(attribute) is { ValueKind: JsonValueKind.Number } n ? n.GetInt32() : throw new Xunit.Sdk.XunitException($"{rule} {attribute} is not a literal port");

    [GeneratedRegex("\"([^\"]+)\"")]
    private static partial Regex QuotedWords();

    [GeneratedRegex("(password|secret|token|license|private_key)", RegexOptions.IgnoreCase)]
    private static partial Regex SecretName();

    [GeneratedRegex(@"\blocal\.selected\.(\w+)")]
    private static partial Regex SelectedSetting();

    /// <summary>An EC2 instance type: family letters, generation, attribute letters (g Graviton, a AMD, i Intel, d local disk...), size.</summary>
    [GeneratedRegex(@"^(?<family>[a-z]+?)(?<generation>\d+)(?<attributes>[a-z-]*)\.(?<size>\w+)$")]
    private static partial Regex InstanceFamily();
}
