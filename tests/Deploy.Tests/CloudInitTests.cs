using System.Globalization;
using System.Text.Json;
using System.Text.RegularExpressions;
using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>
/// The boot scripts are the part of the deployment most likely to fail silently on a real machine, so each
/// cloud-init template is rendered by Terraform itself with sample values, validated against cloud-init's
/// schema, and every shell script it installs is syntax-checked by bash and linted by shellcheck.
/// </summary>
public sealed partial class CloudInitTests : IDisposable
{
    private const string Modules = "deploy/terraform/modules";

    private static readonly Dictionary<string, (string Template, string Values, string Prelude)> Cases = new(StringComparer.Ordinal)
    {
        ["postgres-node-a"] = ("postgres/templates/postgres-cloud-init.yaml.tftpl", PostgresValues(node: 0), PostgresModuleLocals(SpreadSubnets)),
        ["postgres-node-c"] = ("postgres/templates/postgres-cloud-init.yaml.tftpl", PostgresValues(node: 2), PostgresModuleLocals(SpreadSubnets)),
        ["postgres-node-b-single-zone"] = ("postgres/templates/postgres-cloud-init.yaml.tftpl", PostgresValues(node: 1), PostgresModuleLocals(SingleZoneSubnets)),
        ["syncapi-ecr"] = ("syncapi/templates/syncapi-cloud-init.yaml.tftpl", SyncApiValues(fromEcr: true), string.Empty),
        ["syncapi-public-registry"] = ("syncapi/templates/syncapi-cloud-init.yaml.tftpl", SyncApiValues(fromEcr: false), string.Empty),
        ["loadgen"] = ("loadgen/templates/loadgen-cloud-init.yaml.tftpl", """{ source_repository_url = "https://git.example.com/kobo-sync.git" }""", string.Empty),
        ["loadgen-without-source"] = ("loadgen/templates/loadgen-cloud-init.yaml.tftpl", """{ source_repository_url = "" }""", string.Empty),
    };

    private readonly string _scratch = Directory.CreateTempSubdirectory("kobo-sync-cloud-init-").FullName;
    private readonly Dictionary<string, string> _rendered = new(StringComparer.Ordinal);

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

    [FactWhenOnPath("terraform", "/usr/bin/python3")]
    public void PatroniRunsStrictSynchronousReplicationWithTheLocalClustersFailoverTimings()
    {
        var patroni = PatroniConfig("postgres-node-a");
        var dcs = patroni.GetProperty("bootstrap").GetProperty("dcs");

        Assert.True(dcs.GetProperty("synchronous_mode").GetBoolean());
        Assert.True(dcs.GetProperty("synchronous_mode_strict").GetBoolean());
        Assert.True(dcs.GetProperty("postgresql").GetProperty("use_pg_rewind").GetBoolean());
        Assert.True(dcs.GetProperty("postgresql").GetProperty("use_slots").GetBoolean());
        Assert.Equal(0, dcs.GetProperty("primary_start_timeout").GetInt32());
        var (ttl, loopWait, retryTimeout) = (dcs.GetProperty("ttl").GetInt32(), dcs.GetProperty("loop_wait").GetInt32(), dcs.GetProperty("retry_timeout").GetInt32());
        // The timings whose failovers the leader-failover tests measure on deploy/local-cluster.
        var localCluster = File.ReadAllText(Repository.PathOf("deploy/local-cluster/patroni.yml.template"));
        Assert.Equal((LocalClusterTiming(localCluster, "ttl"), LocalClusterTiming(localCluster, "loop_wait"), LocalClusterTiming(localCluster, "retry_timeout")), (ttl, loopWait, retryTimeout));
        Assert.True(loopWait + (2 * retryTimeout) <= ttl, "Patroni needs loop_wait + 2 x retry_timeout <= ttl");
        Assert.Equal("0.0.0.0:8008", patroni.GetProperty("restapi").GetProperty("listen").GetString());
        Assert.Equal("10.40.0.10:8008", patroni.GetProperty("restapi").GetProperty("connect_address").GetString());
        Assert.Equal("10.40.0.10:5432", patroni.GetProperty("postgresql").GetProperty("connect_address").GetString());
        Assert.Equal("/usr/lib/postgresql/15/bin", patroni.GetProperty("postgresql").GetProperty("bin_dir").GetString());
    }

    [FactWhenOnPath("terraform", "/usr/bin/python3")]
    public void EveryNodeBootstrapsWithThePostgresParametersItIsGiven()
    {
        var parameters = PatroniConfig("postgres-node-a").GetProperty("bootstrap").GetProperty("dcs").GetProperty("postgresql").GetProperty("parameters");

        Assert.Equal("4096MB", parameters.GetProperty("shared_buffers").GetString());
        Assert.Equal("12288MB", parameters.GetProperty("effective_cache_size").GetString());
        Assert.Equal("1.1", parameters.GetProperty("random_page_cost").GetString());
        Assert.Equal(200, parameters.GetProperty("max_connections").GetInt32());
    }

    /// <summary>
    /// WAL goes to the pgBackRest repository in S3 from whichever node leads, a node short of WAL reads it
    /// back from there, a new replica is restored from it; the leader backs up on three timers.
    /// </summary>
    [FactWhenOnPath("terraform", "/usr/bin/python3")]
    public void EveryNodeArchivesToTheS3RepositoryAndBacksUpOnTimers()
    {
        var postgresql = PatroniConfig("postgres-node-c").GetProperty("postgresql");
        var parameters = postgresql.GetProperty("parameters");
        var rendered = File.ReadAllText(Render("postgres-node-c"));

        Assert.Equal("on", parameters.GetProperty("archive_mode").GetString());
        Assert.Equal("30s", parameters.GetProperty("archive_timeout").GetString());
        Assert.Equal("pgbackrest --stanza=kobo-sync archive-push %p", parameters.GetProperty("archive_command").GetString());
        Assert.Equal("pgbackrest --stanza=kobo-sync archive-get %f \"%p\"", postgresql.GetProperty("recovery_conf").GetProperty("restore_command").GetString());
        Assert.Equal(["pgbackrest", "basebackup"], postgresql.GetProperty("create_replica_methods").EnumerateArray().Select(m => m.GetString()));
        Assert.Contains("--delta restore", postgresql.GetProperty("pgbackrest").GetProperty("command").GetString(), StringComparison.Ordinal);

        foreach (var setting in new[] { "repo1-type=s3", "repo1-s3-bucket=kobo-sync-pgbackrest-20261129", "repo1-s3-key-type=auto", "repo1-path=/pgbackrest/kobo-sync", "repo1-retention-full=2", "[kobo-sync]" })
        {
            Assert.Contains($"      {setting}\n", rendered, StringComparison.Ordinal);
        }

        Assert.DoesNotContain("repo1-s3-key=", rendered, StringComparison.Ordinal); // the instance role, never a key
        foreach (var (kind, when) in new[] { ("full", "Sun *-*-* 01:10:00"), ("incr", "*-*-* *:40:00"), ("verify", "*-*-* 03:25:00") })
        {
            Assert.Contains($"path: /etc/systemd/system/kobo-sync-backup-{kind}.timer", rendered, StringComparison.Ordinal);
            Assert.Contains($"OnCalendar={when}\n      Persistent=true", rendered, StringComparison.Ordinal);
            Assert.Contains($"Unit=kobo-sync-backup@{kind}.service", rendered, StringComparison.Ordinal);
        }

        Assert.Contains("kobo-sync-backup-full.timer, kobo-sync-backup-incr.timer, kobo-sync-backup-verify.timer", rendered, StringComparison.Ordinal);
        Assert.Contains("kobo_sync_backup_last_success_timestamp_seconds{type=", rendered, StringComparison.Ordinal);
        Assert.Contains("textfile_dir=/var/lib/prometheus/node-exporter", rendered, StringComparison.Ordinal);
        Assert.Contains("path: /usr/local/sbin/kobo-sync-restore-bootstrap", rendered, StringComparison.Ordinal); // the runbook's custom bootstrap
    }

    /// <summary>
    /// The root module's rendering of large-data.conf, evaluated by Terraform for each profile: every
    /// setting of the file, a share of memory ("25%") turned into whole MB of the profile's database memory.
    /// </summary>
    [TheoryWhenOnPath("terraform")]
    [InlineData("budget-arm")]
    [InlineData("high-perf")]
    public void EachProfileGetsEveryLargeDataSettingForItsDatabaseMemory(string profile)
    {
        var root = Path.Combine(_scratch, $"profiles-{profile}", "deploy", "terraform");
        Directory.CreateDirectory(root);
        File.CreateSymbolicLink(Path.Combine(_scratch, $"profiles-{profile}", "deploy", "postgres"), Repository.PathOf("deploy/postgres"));
        File.Copy(Repository.PathOf("deploy/terraform/profiles.tf"), Path.Combine(root, "profiles.tf"));
        File.WriteAllText(Path.Combine(root, "render.tf"), $$"""
            variable "profile" {
              default = "{{profile}}"
            }

            output "parameters" {
              value = local.postgres_parameters
            }

            output "memory_mb" {
              value = local.selected.database_memory_mb
            }
            """);
        foreach (var step in new[] { new[] { "init", "-input=false", "-no-color" }, ["apply", "-auto-approve", "-input=false", "-no-color"] })
        {
            var outcome = ProcessRunner.Run("terraform", step, root, TimeSpan.FromMinutes(1));
            Assert.True(outcome.ExitCode == 0, $"terraform {step[0]}: {outcome.StdOut}{outcome.StdErr}");
        }

        var output = ProcessRunner.Run("terraform", ["output", "-json"], root, TimeSpan.FromMinutes(1));
        Assert.True(output.ExitCode == 0, output.StdErr);
        using var outputs = JsonDocument.Parse(output.StdOut);
        var parameters = outputs.RootElement.GetProperty("parameters").GetProperty("value").Deserialize<Dictionary<string, string>>()!;
        var memoryMb = outputs.RootElement.GetProperty("memory_mb").GetProperty("value").GetInt64();
        var inFile = File.ReadLines(Repository.PathOf("deploy/postgres/large-data.conf"))
            .Select(l => l.Split('#')[0].Trim()).Where(l => l.Length > 0).Select(l => l.Split('=', 2)).ToDictionary(p => p[0].Trim(), p => p[1].Trim(), StringComparer.Ordinal);

        Assert.Contains(inFile.Values, v => v.EndsWith('%'));
        Assert.Equal(inFile.Keys.Order(StringComparer.Ordinal), parameters.Keys.Order(StringComparer.Ordinal));
        Assert.All(inFile, setting => Assert.Equal(setting.Value.EndsWith('%') ? ShareOf(memoryMb, setting.Value) : setting.Value, parameters[setting.Key]));

        static string ShareOf(long memoryMb, string percent) =>
            Math.Floor(memoryMb * decimal.Parse(percent[..^1], CultureInfo.InvariantCulture) / 100).ToString(CultureInfo.InvariantCulture) + "MB";
    }

    [FactWhenOnPath("terraform", "/usr/bin/python3", "patroni")]
    public void TheConfigurationWrittenAtStartPassesPatronisOwnValidator()
    {
        var scripts = Path.Combine(_scratch, "patroni-validate");
        var extract = ProcessRunner.Run("/usr/bin/python3", [Repository.PathOf("tests/Deploy.Tests/cloudinit/extract_scripts.py"), Render("postgres-node-a"), scripts], _scratch, TimeSpan.FromMinutes(1));
        Assert.True(extract.ExitCode == 0, extract.StdErr);
        var configure = File.ReadAllText(extract.StdOut.Split('\n').Select(l => l.Split('\t')).Single(l => l.Length == 2 && l[1] == "/usr/local/sbin/kobo-sync-patroni-configure")[0]);

        // The script's own Python step, with the secrets folder moved to the scratch folder.
        var python = PythonStep().Match(configure);
        Assert.True(python.Success, "kobo-sync-patroni-configure has no Python step");
        var secrets = Directory.CreateDirectory(Path.Combine(scripts, "secrets")).FullName;
        foreach (var name in new[] { "superuser", "replication" })
        {
            File.WriteAllText(Path.Combine(secrets, name), SamplePassword + "\n");
        }

        var step = Path.Combine(scripts, "configure.py");
        File.WriteAllText(step, python.Groups[1].Value.Replace("/etc/patroni/secrets/", secrets + "/", StringComparison.Ordinal));
        var baseConfig = Path.Combine(scripts, "config.base.yml");
        File.WriteAllText(baseConfig, BaseConfigText(Render("postgres-node-a")));
        var config = Path.Combine(scripts, "config.yml");
        var run = ProcessRunner.Run("/usr/bin/python3", [step, baseConfig, config], scripts, TimeSpan.FromMinutes(1));
        Assert.True(run.ExitCode == 0, run.StdErr);

        var validate = ProcessRunner.Run("patroni", ["--validate-config", config], scripts, TimeSpan.FromMinutes(1));
        Assert.True(validate.ExitCode == 0, $"patroni --validate-config: {validate.StdOut}{validate.StdErr}");
        Assert.Contains(SamplePassword, File.ReadAllText(config), StringComparison.Ordinal);
    }

    [FactWhenOnPath("terraform", "/usr/bin/python3")]
    public void PatroniFindsTheThreeMemberEtcdClusterAndEachNodeIsOneMemberOfIt()
    {
        var nodes = new[] { "postgres-node-a", "postgres-node-b-single-zone", "postgres-node-c" };
        foreach (var caseName in nodes)
        {
            var hosts = PatroniConfig(caseName).GetProperty("etcd3").GetProperty("hosts").GetString()!.Split(',');
            Assert.Equal(3, hosts.Distinct(StringComparer.Ordinal).Count());
            Assert.All(hosts, h => Assert.EndsWith(":2379", h, StringComparison.Ordinal));
        }

        var a = File.ReadAllText(Render("postgres-node-a"));
        var c = File.ReadAllText(Render("postgres-node-c"));
        var cluster = InitialCluster().Match(a).Groups[1].Value;
        var members = cluster.Split(',').Select(m => m.Split('=')).ToDictionary(m => m[0], m => m[1], StringComparer.Ordinal);

        Assert.Equal(["a", "b", "c"], members.Keys.Order(StringComparer.Ordinal));
        Assert.Equal(3, members.Values.Distinct(StringComparer.Ordinal).Count());
        Assert.Equal(cluster, InitialCluster().Match(c).Groups[1].Value);
        Assert.Contains($"--initial-advertise-peer-urls {members["a"]}", a, StringComparison.Ordinal);
        Assert.Contains($"--initial-advertise-peer-urls {members["c"]}", c, StringComparison.Ordinal);
        Assert.Contains("--name a ", a, StringComparison.Ordinal);
    }

    [FactWhenOnPath("terraform")]
    public void TheNodesTakeDistinctFixedAddressesInTheirOwnSubnetsEvenInOneZone()
    {
        var spread = Enumerable.Range(0, 3).Select(i => PeerAddress(Render(i switch { 0 => "postgres-node-a", 2 => "postgres-node-c", _ => "postgres-node-b-single-zone" }))).ToList();

        Assert.Equal("10.40.0.10", spread[0]);
        Assert.Equal("10.40.32.12", spread[2]);
        // Single zone: all three subnets are the first one, and node b still gets an address of its own.
        Assert.Equal("10.40.0.11", spread[1]);
    }

    [FactWhenOnPath("terraform", "/usr/bin/python3")]
    public void NoPasswordIsRenderedIntoTheNodesBootScripts()
    {
        var rendered = File.ReadAllText(Render("postgres-node-a"));
        var authentication = PatroniConfig("postgres-node-a").GetProperty("postgresql").GetProperty("authentication");

        Assert.All(authentication.EnumerateObject(), role => Assert.False(role.Value.TryGetProperty("password", out _), $"{role.Name} has a password in the rendered config"));
        Assert.DoesNotContain(SamplePassword, rendered, StringComparison.Ordinal);
        foreach (var secret in new[] { "postgres-superuser", "postgres-replication", "postgres-app" })
        {
            Assert.Contains($"secret:kobo-sync/{secret}-AbCdEf", rendered, StringComparison.Ordinal);
        }
    }

    [FactWhenOnPath("terraform")]
    public void TheServiceGetsBothMultiHostStringsWithThePasswordOnlyAtStart()
    {
        var syncApi = File.ReadAllText(Render("syncapi-ecr"));
        const string Base = "Host=10.40.0.10:5432,10.40.16.11:5432,10.40.32.12:5432;Database=kobo_sync;Username=kobo;Password=$password";

        Assert.Contains($"base=\"{Base}\"", syncApi, StringComparison.Ordinal);
        Assert.Contains("echo \"Storage__ConnectionString=$base;Target Session Attributes=primary\"", syncApi, StringComparison.Ordinal);
        Assert.Contains("echo \"Storage__ReadConnectionString=$base;Target Session Attributes=prefer-standby;Load Balance Hosts=true\"", syncApi, StringComparison.Ordinal);
        Assert.Contains("--env-file /etc/kobo-sync/secrets.env", syncApi, StringComparison.Ordinal);
        Assert.Contains("secret:kobo-sync/postgres-app-AbCdEf", syncApi, StringComparison.Ordinal);
        Assert.DoesNotContain(SamplePassword, syncApi, StringComparison.Ordinal);
        Assert.DoesNotMatch(@"Password=[^$]", syncApi);
    }

    [FactWhenOnPath("terraform")]
    public void TheServiceGetsItsConfigurationOnlyFromEnvironmentVariables()
    {
        var syncApi = File.ReadAllText(Render("syncapi-ecr"));

        Assert.Contains("Demo__Seed=false", syncApi, StringComparison.Ordinal);
        // Each instance sizes its pools to its share of the primary: the group's most instances.
        Assert.Contains("Storage__Instances=6\n", syncApi, StringComparison.Ordinal);
        // Only the load balancer's subnets are trusted to forward a device's address.
        Assert.Contains("Proxies__TrustedNetworks__0=10.40.128.0/20\n", syncApi, StringComparison.Ordinal);
        Assert.Contains("Proxies__TrustedNetworks__1=10.40.144.0/20\n", syncApi, StringComparison.Ordinal);
        Assert.DoesNotContain("Proxies__TrustedNetworks__2", syncApi, StringComparison.Ordinal);
        Assert.Contains("echo \"Auth__SigningKey=$signing_key\"", syncApi, StringComparison.Ordinal);
        Assert.Contains("echo \"Paging__CursorKey=$cursor_key\"", syncApi, StringComparison.Ordinal);
        Assert.Contains("secret:kobo-sync/syncapi-signing-key-AbCdEf", syncApi, StringComparison.Ordinal);
        Assert.Contains("secret:kobo-sync/syncapi-cursor-key-AbCdEf", syncApi, StringComparison.Ordinal);
        Assert.Contains("--env-file /etc/kobo-sync/syncapi.env", syncApi, StringComparison.Ordinal);
        Assert.DoesNotContain("appsettings", syncApi, StringComparison.Ordinal);
        Assert.DoesNotContain("Raven", syncApi, StringComparison.Ordinal);
    }

    private JsonElement PatroniConfig(string caseName)
    {
        var outcome = ProcessRunner.Run("/usr/bin/python3", [Repository.PathOf("tests/Deploy.Tests/cloudinit/file_as_json.py"), Render(caseName), "/etc/patroni/config.base.yml"], _scratch, TimeSpan.FromMinutes(1));
        Assert.True(outcome.ExitCode == 0, outcome.StdErr);
        using var json = JsonDocument.Parse(outcome.StdOut);
        return json.RootElement.Clone();
    }

    private string BaseConfigText(string rendered)
    {
        var outcome = ProcessRunner.Run(
            "/usr/bin/python3",
            ["-c", "import sys, yaml; print(next(f['content'] for f in yaml.safe_load(open(sys.argv[1]))['write_files'] if f['path'] == '/etc/patroni/config.base.yml'))", rendered],
            _scratch,
            TimeSpan.FromMinutes(1));
        Assert.True(outcome.ExitCode == 0, outcome.StdErr);
        return outcome.StdOut;
    }

    private static int LocalClusterTiming(string template, string key)
    {
        var match = Regex.Match(template, $@"(?m)^\s*{key}:\s*(\d+)\s*$");
        Assert.True(match.Success, $"deploy/local-cluster/patroni.yml.template sets no {key}");
        return int.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture);
    }

    private static string PeerAddress(string rendered)
    {
        var match = AdvertisedPeer().Match(File.ReadAllText(rendered));
        Assert.True(match.Success, "no --initial-advertise-peer-urls in the etcd unit");
        return match.Groups[1].Value;
    }

    private string Render(string caseName)
    {
        if (_rendered.TryGetValue(caseName, out var done))
        {
            return done;
        }

        var (template, values, prelude) = Cases[caseName];
        var root = Path.Combine(_scratch, caseName);
        Directory.CreateDirectory(root);
        var templatePath = Repository.PathOf($"{Modules}/{template}").Replace("\\", "/", StringComparison.Ordinal);
        File.WriteAllText(Path.Combine(root, "render.tf"), $$"""
            {{prelude}}
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
        _rendered[caseName] = rendered;
        return rendered;
    }

    /// <summary>
    /// The postgres module's own <c>locals</c> block, copied from its main.tf, with sample subnets: the
    /// node addresses and the etcd member list are computed by the module's expressions, not by the test.
    /// </summary>
    private static string PostgresModuleLocals(string subnets)
    {
        var main = File.ReadAllText(Repository.PathOf($"{Modules}/postgres/main.tf"));
        var locals = LocalsBlock().Match(main);
        Assert.True(locals.Success, "modules/postgres/main.tf has no locals block");
        return $$"""
            variable "placement_subnet_cidrs" {
              default = {{subnets}}
            }

            variable "internal_domain" {
              default = "kobo-sync.internal"
            }

            {{locals.Value}}
            """;
    }

    private const string SamplePassword = "SamplePassword0123456789";

    private static string PostgresValues(int node) => $$"""
        {
          node_name                       = local.node_names[{{node}}]
          node_ip                         = local.node_ips[{{node}}]
          node_ips                        = local.node_ips
          cluster_name                    = "kobo-sync"
          etcd_initial_cluster            = local.etcd_initial_cluster
          etcd_endpoints                  = local.etcd_endpoints
          client_cidr                     = "10.40.0.0/16"
          database_name                   = "kobo_sync"
          app_user                        = "kobo"
          postgres_parameters             = { shared_buffers = "4096MB", effective_cache_size = "12288MB", random_page_cost = "1.1" }
          region                          = "us-east-1"
          data_volume_device              = "/dev/disk/by-id/nvme-Amazon_Elastic_Block_Store_vol0123456789abcdef0"
          superuser_password_secret_arn   = "arn:aws:secretsmanager:us-east-1:123456789012:secret:kobo-sync/postgres-superuser-AbCdEf"
          replication_password_secret_arn = "arn:aws:secretsmanager:us-east-1:123456789012:secret:kobo-sync/postgres-replication-AbCdEf"
          app_password_secret_arn         = "arn:aws:secretsmanager:us-east-1:123456789012:secret:kobo-sync/postgres-app-AbCdEf"
          backup_bucket                   = "kobo-sync-pgbackrest-20261129"
          backup_repo_path                = "/pgbackrest/kobo-sync"
          backup_retention_full           = 2
          backup_schedule                 = { full = "Sun *-*-* 01:10:00", incr = "*-*-* *:40:00", verify = "*-*-* 03:25:00" }
          archive_timeout_seconds         = 30
        }
        """;

    private const string SpreadSubnets = """["10.40.0.0/20", "10.40.16.0/20", "10.40.32.0/20"]""";

    // single_az: the network module repeats the first private subnet three times.
    private const string SingleZoneSubnets = """["10.40.0.0/20", "10.40.0.0/20", "10.40.0.0/20"]""";

    private static string SyncApiValues(bool fromEcr) => $$"""
        {
          image                         = "{{(fromEcr ? "123456789012.dkr.ecr.us-east-1.amazonaws.com/kobo-sync:1.0.0" : "ghcr.io/example/kobo-sync:1.0.0")}}"
          image_registry                = "{{(fromEcr ? "123456789012.dkr.ecr.us-east-1.amazonaws.com" : "ghcr.io")}}"
          image_from_ecr                = {{(fromEcr ? "true" : "false")}}
          region                        = "us-east-1"
          app_password_secret_arn       = "arn:aws:secretsmanager:us-east-1:123456789012:secret:kobo-sync/postgres-app-AbCdEf"
          postgres_hosts                = ["10.40.0.10:5432", "10.40.16.11:5432", "10.40.32.12:5432"]
          database_name                 = "kobo_sync"
          app_user                      = "kobo"
          signing_key_secret_arn        = "arn:aws:secretsmanager:us-east-1:123456789012:secret:kobo-sync/syncapi-signing-key-AbCdEf"
          cursor_key_secret_arn         = "arn:aws:secretsmanager:us-east-1:123456789012:secret:kobo-sync/syncapi-cursor-key-AbCdEf"
          lb_subnet_cidrs               = ["10.40.128.0/20", "10.40.144.0/20"]
          instances                     = 6
        }
        """;

    [GeneratedRegex(@"(?ms)<<'PY'\n(.*?)^PY$")]
    private static partial Regex PythonStep();

    [GeneratedRegex(@"--initial-cluster (\S+)")]
    private static partial Regex InitialCluster();

    [GeneratedRegex(@"--initial-advertise-peer-urls http://([0-9.]+):2380")]
    private static partial Regex AdvertisedPeer();

    [GeneratedRegex(@"(?ms)^locals \{.*?^\}")]
    private static partial Regex LocalsBlock();

    public void Dispose() => Directory.Delete(_scratch, recursive: true);
}
