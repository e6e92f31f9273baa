using System.Text.Json;
using System.Text.RegularExpressions;
using Kobo.Sync.Deploy.Tests.Support;

namespace Kobo.Sync.Deploy.Tests;

/// <summary>
/// The pgBackRest repository of the Terraform deployment (an S3 bucket the database nodes alone may use,
/// and only under the repository's path) and the schedules that fill it, here and on the local cluster.
/// </summary>
public sealed partial class BackupRepositoryTests(TerraformTree tree) : IClassFixture<TerraformTree>
{
    private const string DatabaseModule = "modules/postgres";

    [Fact]
    public void TheBucketIsPrivateEncryptedVersionedAndKeptOnDestroy()
    {
        var bucket = Single("aws_s3_bucket");
        Assert.False(bucket.Body.GetProperty("force_destroy").GetBoolean());

        var publicAccess = Single("aws_s3_bucket_public_access_block");
        Assert.All(
            new[] { "block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets" },
            setting => Assert.True(publicAccess.Body.GetProperty(setting).GetBoolean(), setting));
        var encryption = Single("aws_s3_bucket_server_side_encryption_configuration").Body.GetProperty("rule")[0]
            .GetProperty("apply_server_side_encryption_by_default")[0];
        Assert.Contains(encryption.GetProperty("sse_algorithm").GetString(), new[] { "AES256", "aws:kms" });
        Assert.Equal("Enabled", Single("aws_s3_bucket_versioning").Body.GetProperty("versioning_configuration")[0].GetProperty("status").GetString());

        // Plain HTTP is refused to everyone.
        var policy = PolicyDocument("backup_bucket").GetProperty("statement").EnumerateArray().Single();
        Assert.Equal("Deny", policy.GetProperty("effect").GetString());
        var condition = policy.GetProperty("condition")[0];
        Assert.Equal(("aws:SecureTransport", "false"), (condition.GetProperty("variable").GetString(), condition.GetProperty("values")[0].GetString()));
    }

    /// <summary>pgBackRest expires backups and WAL itself; the rule only removes what it cannot see.</summary>
    [Fact]
    public void TheLifecycleRuleAbortsUnfinishedUploadsAndDropsDeletedVersionsUnderTheRepositoryOnly()
    {
        var rule = Assert.Single(Single("aws_s3_bucket_lifecycle_configuration").Body.GetProperty("rule").EnumerateArray());

        Assert.Equal("Enabled", rule.GetProperty("status").GetString());
        Assert.Equal("${local.backup_repo_path}/", rule.GetProperty("filter")[0].GetProperty("prefix").GetString());
        Assert.Equal(1, rule.GetProperty("abort_incomplete_multipart_upload")[0].GetProperty("days_after_initiation").GetInt32());
        Assert.Equal("${var.backup_noncurrent_days}", rule.GetProperty("noncurrent_version_expiration")[0].GetProperty("noncurrent_days").GetString());
        // No expiry of current objects: a backup the repository still needs is never deleted by age.
        Assert.False(rule.GetProperty("expiration")[0].TryGetProperty("days", out _));
    }

    [Fact]
    public void TheNodesRoleMayListReadWriteAndDeleteOnlyUnderTheRepositoryPath()
    {
        var attached = Single("aws_iam_role_policy", "backup_repository");
        Assert.Equal("${aws_iam_role.node.id}", attached.Text("role"));
        Assert.Equal("${data.aws_iam_policy_document.backup_repository.json}", attached.Text("policy"));

        var statements = PolicyDocument("backup_repository").GetProperty("statement").EnumerateArray().ToList();
        Assert.All(statements, s => Assert.False(s.TryGetProperty("effect", out var e) && e.GetString() == "Deny"));
        var actions = statements.SelectMany(s => s.GetProperty("actions").EnumerateArray().Select(a => a.GetString()!)).Order(StringComparer.Ordinal);
        Assert.Equal(["s3:DeleteObject", "s3:GetObject", "s3:ListBucket", "s3:PutObject"], actions);

        var list = Assert.Single(statements, s => s.GetProperty("actions")[0].GetString() == "s3:ListBucket");
        Assert.Equal(["${aws_s3_bucket.backup.arn}"], list.GetProperty("resources").EnumerateArray().Select(r => r.GetString()));
        var prefix = list.GetProperty("condition")[0];
        Assert.Equal("s3:prefix", prefix.GetProperty("variable").GetString());
        Assert.All(prefix.GetProperty("values").EnumerateArray(), v => Assert.StartsWith("${local.backup_repo_path}", v.GetString(), StringComparison.Ordinal));

        var objects = Assert.Single(statements, s => s.GetProperty("actions")[0].GetString() != "s3:ListBucket");
        Assert.Equal(["${aws_s3_bucket.backup.arn}/${local.backup_repo_path}/*"], objects.GetProperty("resources").EnumerateArray().Select(r => r.GetString()));
    }

    [Fact]
    public void TheBootScriptGetsTheBucketTheRepositoryPathTheRetentionAndTheArchiveTimeout()
    {
        var config = Assert.Single(tree.Blocks("data", "cloudinit_config"), d => TerraformTree.ModuleOf(d.File) == DatabaseModule);
        var content = config.Body.GetProperty("part")[0].GetProperty("content").GetString()!;

        Assert.Contains("backup_bucket                   = aws_s3_bucket.backup.bucket", content, StringComparison.Ordinal);
        Assert.Contains("backup_retention_full           = var.backup_retention_full", content, StringComparison.Ordinal);
        Assert.Contains("archive_timeout_seconds         = var.archive_timeout_seconds", content, StringComparison.Ordinal);
        Assert.Contains("backup_repo_path                = \"/${local.backup_repo_path}\"", content, StringComparison.Ordinal);
    }

    /// <summary>The archive setting that bounds a latest-point restore's loss is the same here and in AWS, and under a minute.</summary>
    [Fact]
    public void TheArchiveTimeoutIsThirtySecondsOnTheLocalClusterAndInTheDeployment()
    {
        var variable = Assert.Single(tree.Blocks("variable"), v => TerraformTree.ModuleOf(v.File) == DatabaseModule && v.Name == "archive_timeout_seconds");
        var local = LocalDefault().Match(File.ReadAllText(Repository.PathOf("deploy/local-cluster/backup.sh")));

        Assert.Equal(30, variable.Body.GetProperty("default").GetInt32());
        Assert.True(local.Success, "deploy/local-cluster/backup.sh sets no default archive_timeout");
        Assert.Equal("30s", local.Groups[1].Value);
    }

    [Fact]
    public void TheScheduleTakesAFullBackupWeeklyAnIncrementalHourlyAndVerifiesDaily()
    {
        var schedule = Assert.Single(tree.Blocks("variable"), v => TerraformTree.ModuleOf(v.File) == DatabaseModule && v.Name == "backup_schedule")
            .Body.GetProperty("default");
        Assert.Matches(@"^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \*-\*-\* \d\d:\d\d:\d\d$", schedule.GetProperty("full").GetString());
        Assert.Matches(@"^\*-\*-\* \*:\d\d:\d\d$", schedule.GetProperty("incr").GetString());
        Assert.Matches(@"^\*-\*-\* \d\d:\d\d:\d\d$", schedule.GetProperty("verify").GetString());

        // The local cluster's cron entries: minute hour day-of-month month day-of-week.
        var cron = ProcessRunner.Run("bash", [Repository.PathOf("deploy/local-cluster/cluster.sh"), "schedule"], Repository.Root, TimeSpan.FromSeconds(30));
        Assert.True(cron.ExitCode == 0, cron.StdErr);
        var entries = cron.StdOut.Split('\n').Where(l => l.Length > 0 && !l.StartsWith('#')).Select(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)).ToList();
        Assert.Equal(3, entries.Count);
        Assert.Contains(entries, e => e[2] == "*" && e[4] != "*" && e.Contains("backup") && e[^3] == "full");
        Assert.Contains(entries, e => e[1] == "*" && e.Contains("backup") && e[^3] == "incr");
        Assert.Contains(entries, e => e[1] != "*" && e[4] == "*" && e[^3] == "verify");
    }

    private TerraformTree.Block Single(string type, string? name = null) =>
        Assert.Single(tree.Resources(type), r => TerraformTree.ModuleOf(r.File) == DatabaseModule && (name is null || r.Name == name));

    private JsonElement PolicyDocument(string name) =>
        Assert.Single(tree.Blocks("data", "aws_iam_policy_document"), d => TerraformTree.ModuleOf(d.File) == DatabaseModule && d.Name == name).Body;

    [GeneratedRegex(@"ARCHIVE_TIMEOUT=""\$\{KOBO_CLUSTER_ARCHIVE_TIMEOUT:-([0-9a-z]+)\}""")]
    private static partial Regex LocalDefault();
}
