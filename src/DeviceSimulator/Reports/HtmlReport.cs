using System.Globalization;
using System.Net;
using System.Text;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Reports;

/// <summary>
/// <c>report.html</c>: one self-contained page (inline CSS and SVG, no script, no CDN) with the
/// verdict, latency percentiles over time (and, for merged shards, each shard's), throughput and
/// failures over time, the latency distribution, and the tables of the Markdown summary.
/// </summary>
public static class HtmlReport
{
    private static readonly (double Percentile, string Label)[] Spectrum =
        [(50, "50"), (75, "75"), (90, "90"), (95, "95"), (99, "99"), (99.9, "99.9"), (99.99, "99.99"), (100, "max")];

    public static string Render(RunResult result)
    {
        var c = CultureInfo.InvariantCulture;
        var html = new StringBuilder();
        html.Append("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>")
            .Append(Esc($"{result.Profile} {result.OutcomeWord}"))
            .Append("</title><style>body{font-family:sans-serif;margin:24px;max-width:1100px}table{border-collapse:collapse;margin:12px 0}")
            .Append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}th{background:#f3f3f3}td:first-child{text-align:left}")
            .Append(".pass{color:#1a7f37}.fail{color:#cf222e}.not-proven{color:#9a6700}" +
                ".warn{background:#fff4ce;padding:8px}</style></head><body>");
        html.Append(
            c,
            $"<h1 id=\"verdict\" " +
            $"class=\"{result.Outcome switch { RunOutcome.Pass => "pass", RunOutcome.NotProven => "not-proven", _ => "fail" }}\">" +
            $"{Esc(result.Verdict)}</h1>");
        html.Append(c, $"<p>{Esc(result.Description)}</p>");
        html.Append(
            c,
            $"<p>Started {result.Started:u}, {result.DurationSeconds:F1} s, seed {result.Seed}, {result.Devices:N0} devices, " +
            $"shards {Esc(string.Join(", ", result.Shards))}. ");
        html.Append(
            c,
            $"Generator CPU mean {result.Generator.CpuMean:P0}, peak {result.Generator.CpuPeak:P0} of {result.Generator.Cores} cores; " +
            $"dispatch lag p99 {result.Generator.DispatchLagP99.TotalMilliseconds:F1} " +
            $"ms{GeneratorVerdictLine.Dispatches(result.Generator)}.</p>");
        foreach (var line in GeneratorVerdictLine.Lines(result))
        {
            html.Append(c, $"<p class=\"generator-verdict\">{Esc(line)}</p>");
        }

        if (result.Generator.Warning is { } warning)
        {
            html.Append(c, $"<p class=\"warn\">Warning: {Esc(warning)}</p>");
        }

        html.Append(SvgChart.Lines(
            "Latency over time (p50 solid, p99 dashed)", "second of the run (intended start)", "ms",
            result.Scenarios.SelectMany(s => new[]
            {
                new SvgChart.Series($"{s.Name} p50", s.Timeline.Select(t => ((double)t.Second, t.P50)).ToList()),
                new SvgChart.Series($"{s.Name} p99", s.Timeline.Select(t => ((double)t.Second, t.P99)).ToList(), Dashed: true),
            }).ToList()));
        if (result.ShardRuns.Count > 1)
        {
            ShardCharts(html, result);
        }

        html.Append(SvgChart.Lines(
            "Throughput (solid) and failed syncs (dashed) over time", "second of the run", "syncs/s",
            result.Scenarios.SelectMany(s => new[]
            {
                new SvgChart.Series($"{s.Name}", s.Timeline.Select(t => ((double)t.Second, (double)t.Syncs)).ToList()),
                new SvgChart.Series(
                    $"{s.Name} failed", s.Timeline.Select(t => ((double)t.Second, (double)t.Failed)).ToList(), Dashed: true),
            }).ToList()));
        html.Append(SvgChart.Lines(
            "Latency distribution", "percentile", "ms",
            result.Scenarios.Select(
                s => new SvgChart.Series(s.Name, Spectrum.Select((p, i) => ((double)i, At(s.Latency, p.Percentile))).ToList())).ToList(),
            Spectrum.Select((p, i) => ((double)i, p.Label)).ToList()));

        html.Append("<h2>Scenarios</h2><table><tr><th>scenario</th><th>syncs</th><th>syncs/s</th><th>failed %</th><th>retries</th>")
            .Append("<th>p50</th><th>p75</th><th>p95</th><th>p99</th><th>p99.9</th><th>p99.99</th><th>max</th></tr>");
        foreach (var s in result.Scenarios)
        {
            var l = s.Latency;
            html.Append(
                c,
                $"<tr><td>{Esc(s.Name)}</td><td>{s.Syncs:N0}</td><td>{s.ThroughputPerSecond:F1}</td><td>{s.FailedPercent:0.###}</td>" +
                $"<td>{s.Retries:N0}</td>");
            html.Append(
                c,
                $"<td>{l.P50:F2}</td><td>{l.P75:F2}</td><td>{l.P95:F2}</td><td>{l.P99:F2}</td><td>{l.P999:F2}</td><td>{l.P9999:F2}</td>" +
                $"<td>{l.Max:F2}</td></tr>");
        }

        html.Append("</table><p>Latency in ms from each sync's intended start, retries included.</p>");
        if (result.Scenarios.Any(s => s.Live is not null))
        {
            html.Append("<h2>Live pull</h2><p>A <code>/wake</code> row's latency runs from the push's acknowledgement " +
                    "(its answer received by the pushing device) to a waiting device of the user holding the change, " +
                    "one per delivery (0 when the device held it first); its syncs are deliveries.</p>")
                .Append(
                    "<table><tr><th>scenario</th><th>waiting devices</th><th>deliveries " +
                    "owed</th><th>delivered</th><th>missed</th><th>before the ack</th><th>repeated</th>")
                .Append(
                    "<th>to another user</th><th>pushes failed</th><th>requests</th><th>per device-hour</th><th>answers with " +
                    "changes</th><th>heartbeats</th><th>refused</th><th>errors</th><th>window s</th></tr>");
            foreach (var s in result.Scenarios)
            {
                if (s.Live is { } l)
                {
                    html.Append(
                        c,
                        $"<tr><td>{Esc(s.Name)}</td><td>{l.Waiters:N0}</td><td>{l.Expected:N0}</td><td>{l.Delivered:N0}</td>" +
                        $"<td class=\"{(l.Missed == 0 ? "pass" : "fail")}\">{l.Missed:N0}</td><td>{l.BeforeAck:N0}</td>" +
                        $"<td>{l.Repeated:N0}</td>");
                    html.Append(
                        c,
                        $"<td>{l.Misdelivered:N0}</td><td>{l.UnacknowledgedPushes:N0}</td><td>{l.Requests:N0}</td>" +
                        $"<td>{l.RequestsPerDeviceHour:F1}</td><td>{l.AnswersWithChanges:N0}</td><td>{l.Heartbeats:N0}</td>" +
                        $"<td>{l.Refused:N0}</td><td>{l.Errors:N0}</td><td>{l.WindowSeconds:F1}</td></tr>");
                }
            }

            html.Append("</table>");
        }

        if (result.Baseline.Count > 0)
        {
            html.Append(
                "<h2>Service over raw PostgreSQL</h2><table><tr><th>read</th><th>transport</th><th>step</th><th>p50 ratio</th><th>p99 " +
                "ratio</th></tr>");
            foreach (var b in result.Baseline)
            {
                html.Append(
                    c,
                    $"<tr><td>{b.Read}</td><td>{b.Transport}</td><td>{(b.Step is { } step ? (step + 1).ToString(c) : "whole run")}</td>" +
                    $"<td>{b.P50Ratio:F1}x ({b.ServiceP50:F2} / {b.PostgresP50:F2} ms)</td>" +
                    $"<td>{b.P99Ratio:F1}x ({b.ServiceP99:F2} / {b.PostgresP99:F2} ms)</td></tr>");
            }

            html.Append("</table>");
        }

        html.Append("<h2>Thresholds</h2><table><tr><th>check</th><th>limit</th><th>actual</th><th>result</th></tr>");
        foreach (var check in result.Checks)
        {
            html.Append(
                c,
                $"<tr><td>{Esc(check.Subject)} {Esc(check.Metric)}</td><td>{check.Limit:0.###}</td><td>{check.Actual:0.###}</td><td " +
                $"class=\"{(check.Passed ? "pass" : "fail")}\">{(check.Passed ? "pass" : "FAIL")}</td></tr>");
        }

        html.Append("</table></body></html>");
        return html.ToString();
    }

    /// <summary>
    /// Merged shards: each scenario's latency over time as each shard saw it, one p50 and one p99 line
    /// per shard, so one shard's generator or network falling behind stands out from the merged line.
    /// </summary>
    private static void ShardCharts(StringBuilder html, RunResult result)
    {
        var c = CultureInfo.InvariantCulture;
        html.Append(
            "<h2>Shards</h2><table><tr><th>shard</th><th>scenario</th><th>syncs</th><th>p99</th><th>generator CPU peak</th><th>dispatch " +
            "lag p99</th></tr>");
        foreach (var shard in result.ShardRuns)
        {
            var g = shard.Generator;
            foreach (var s in shard.Scenarios)
            {
                html.Append(c, $"<tr><td>{Esc(shard.Shard)}</td><td>{Esc(s.Name)}</td><td>{s.Syncs:N0}</td><td>{s.P99:F2}</td>");
                html.Append(
                    c,
                    $"<td class=\"{(g.Saturated ? "fail" : "pass")}\">{g.CpuPeak:P0} of {g.Cores} " +
                    $"cores</td><td>{g.DispatchLagP99.TotalMilliseconds:F1} ms</td></tr>");
            }
        }

        html.Append("</table>");
        foreach (var name in result.Scenarios.Select(s => s.Name))
        {
            html.Append(SvgChart.Lines(
                $"Latency over time per shard: {name} (p50 solid, p99 dashed)", "second of the run (intended start)", "ms",
                result.ShardRuns.SelectMany((shard, i) => shard.Scenarios.Where(s => s.Name == name).SelectMany(s => new[]
                {
                    new SvgChart.Series($"shard {shard.Shard} p50", s.Timeline.Select(t => ((double)t.Second, t.P50)).ToList(), Colour: i),
                    new SvgChart.Series(
                        $"shard {shard.Shard} p99", s.Timeline.Select(t => ((double)t.Second, t.P99)).ToList(), Dashed: true, Colour: i),
                })).ToList()));
        }
    }

    private static double At(LatencySummary l, double percentile) => percentile switch
    {
        50 => l.P50,
        75 => l.P75,
        90 => l.P90,
        95 => l.P95,
        99 => l.P99,
        99.9 => l.P999,
        99.99 => l.P9999,
        _ => l.Max,
    };

    private static string Esc(string text) => WebUtility.HtmlEncode(text);
}
