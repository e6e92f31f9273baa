using System.Globalization;
using System.Text.RegularExpressions;
using Kobo.Sync.SyncApi.Tests.Telemetry.Support;

namespace Kobo.Sync.SyncApi.Tests.Telemetry.Alerts;

/// <summary>
/// deploy/alerts as the end-to-end test runs it: every duration of the rules (PromQL windows, offsets,
/// <c>for:</c>) divided by one factor, so that an hour's window takes minutes; Alertmanager's routing
/// with its receivers pointed at the test's webhook and its waits shortened to seconds.
/// </summary>
public static partial class AlertingFiles
{
    public static string Directory => Path.Combine(Dashboard.RepositoryRoot(), "deploy", "alerts");

    /// <summary>The rule file <paramref name="name"/> with each duration divided by <paramref name="factor"/> (at least 1 s).</summary>
    public static string ScaledRules(string name, int factor)
    {
        var text = File.ReadAllText(Path.Combine(Directory, name));
        text = Window().Replace(text, m => "[" + Scaled(m.Groups[1].Value, m.Groups[2].Value, factor) + "]");
        text = Offset().Replace(text, m => "offset " + Scaled(m.Groups[1].Value, m.Groups[2].Value, factor));
        return For().Replace(text, m => m.Groups[1].Value + Scaled(m.Groups[2].Value, m.Groups[3].Value, factor));
    }

    /// <summary>The routing of deploy/alerts/alertmanager.yml, each receiver posting to <paramref name="webhook"/> (path: the receiver's name), waits of a second or two.</summary>
    public static string TestAlertmanager(Uri webhook)
    {
        var text = File.ReadAllText(Path.Combine(Directory, "alertmanager.yml"));
        text = Receiver().Replace(text, m => "url: " + new Uri(webhook, m.Groups[1].Value));
        text = GroupWait().Replace(text, "group_wait: 1s");
        return GroupInterval().Replace(text, "group_interval: 2s");
    }

    public static TimeSpan Seconds(string value, string unit) => unit switch
    {
        "s" => TimeSpan.FromSeconds(int.Parse(value, CultureInfo.InvariantCulture)),
        "m" => TimeSpan.FromMinutes(int.Parse(value, CultureInfo.InvariantCulture)),
        "h" => TimeSpan.FromHours(int.Parse(value, CultureInfo.InvariantCulture)),
        "d" => TimeSpan.FromDays(int.Parse(value, CultureInfo.InvariantCulture)),
        _ => throw new ArgumentException($"unit {unit}"),
    };

    private static string Scaled(string value, string unit, int factor) =>
        Math.Max(1, (int)(Seconds(value, unit).TotalSeconds / factor)).ToString(CultureInfo.InvariantCulture) + "s";

    [GeneratedRegex(@"\[(\d+)([smhd])\]")]
    private static partial Regex Window();

    [GeneratedRegex(@"offset (\d+)([smhd])\b")]
    private static partial Regex Offset();

    [GeneratedRegex(@"^([ \t]+for: )(\d+)([smhd])[ \t]*$", RegexOptions.Multiline)]
    private static partial Regex For();

    [GeneratedRegex(@"url: http://127\.0\.0\.1:\d+/(\w+)")]
    private static partial Regex Receiver();

    [GeneratedRegex(@"group_wait: \w+")]
    private static partial Regex GroupWait();

    [GeneratedRegex(@"group_interval: \w+")]
    private static partial Regex GroupInterval();
}
