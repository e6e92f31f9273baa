using System.Globalization;
using System.Text;
using Kobo.Sync.DeviceSimulator.Results;

namespace Kobo.Sync.DeviceSimulator.Reports;

/// <summary><c>summary.md</c>: the run's tables in Markdown, for a pull request or a release note.</summary>
public static class MarkdownSummary
{
    public static string Render(RunResult result)
    {
        var md = new StringBuilder();
        var c = CultureInfo.InvariantCulture;
        md.AppendLine(c, $"# {result.Profile}: {result.OutcomeWord}");
        md.AppendLine();
        md.AppendLine(c, $"{result.Description}");
        md.AppendLine();
        md.AppendLine(
            c,
            $"Started {result.Started:u}, {result.DurationSeconds:F1} s, seed {result.Seed}, {result.Devices:N0} devices, " +
            $"shards {string.Join(", ", result.Shards)}.");
        md.AppendLine(
            c,
            $"Generator: CPU mean {result.Generator.CpuMean:P0}, peak {result.Generator.CpuPeak:P0} of {result.Generator.Cores} cores; " +
            $"dispatch lag p99 {result.Generator.DispatchLagP99.TotalMilliseconds:F1} ms, " +
            $"max {result.Generator.DispatchLagMax.TotalMilliseconds:F1} ms{GeneratorVerdictLine.Dispatches(result.Generator)}.");
        foreach (var line in GeneratorVerdictLine.Lines(result))
        {
            md.AppendLine(c, $"{line}");
        }

        if (result.Generator.Warning is { } warning)
        {
            md.AppendLine();
            md.AppendLine(c, $"**Warning:** {warning}.");
        }

        md.AppendLine();
        md.AppendLine("Latency in ms from each sync's intended start (retries included).");
        md.AppendLine();
        md.AppendLine("| scenario | syncs | syncs/s | failed % | retries | p50 | p75 | p95 | p99 | p99.9 | p99.99 | max |");
        md.AppendLine("|---|---|---|---|---|---|---|---|---|---|---|---|");
        foreach (var s in result.Scenarios)
        {
            var l = s.Latency;
            md.AppendLine(
                c,
                $"| {s.Name} | {s.Syncs:N0} | {s.ThroughputPerSecond:F1} | {s.FailedPercent:0.###} | {s.Retries:N0} | {l.P50:F2} | " +
                $"{l.P75:F2} | {l.P95:F2} | {l.P99:F2} | {l.P999:F2} | {l.P9999:F2} | {l.Max:F2} |");
        }

        if (result.ShardRuns.Count > 1)
        {
            md.AppendLine();
            md.AppendLine("Per shard (each shard's own syncs and p99, in ms, and its generator):");
            md.AppendLine();
            md.AppendLine("| shard | scenario | syncs | p99 | generator CPU peak | dispatch lag p99 | saturated |");
            md.AppendLine("|---|---|---|---|---|---|---|");
            foreach (var shard in result.ShardRuns)
            {
                var g = shard.Generator;
                foreach (var s in shard.Scenarios)
                {
                    md.AppendLine(
                        c,
                        $"| {shard.Shard} | {s.Name} | {s.Syncs:N0} | {s.P99:F2} | {g.CpuPeak:P0} of {g.Cores} cores | " +
                        $"{g.DispatchLagP99.TotalMilliseconds:F1} ms | {(g.Saturated ? "yes" : "no")} |");
                }
            }
        }

        if (result.Scenarios.Any(s => s.Live is not null))
        {
            md.AppendLine();
            md.AppendLine(
                "Live pull: a `/wake` row's latency runs from the push's acknowledgement (its answer received by the pushing device) " +
                "to a waiting device of the user holding the change, one per delivery (0 when the device held it first); " +
                "its syncs are deliveries.");
            md.AppendLine();
            md.AppendLine(
                "| scenario | waiting devices | deliveries owed | delivered | missed | before the ack | repeated | to another user | " +
                "pushes failed | requests | per device-hour | answers with changes | heartbeats | refused | errors | window s |");
            md.AppendLine("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
            foreach (var s in result.Scenarios)
            {
                if (s.Live is { } l)
                {
                    md.AppendLine(
                        c,
                        $"| {s.Name} | {l.Waiters:N0} | {l.Expected:N0} | {l.Delivered:N0} | {l.Missed:N0} | {l.BeforeAck:N0} | " +
                        $"{l.Repeated:N0} | {l.Misdelivered:N0} | {l.UnacknowledgedPushes:N0} | {l.Requests:N0} | " +
                        $"{l.RequestsPerDeviceHour:F1} | {l.AnswersWithChanges:N0} | {l.Heartbeats:N0} | {l.Refused:N0} | {l.Errors:N0} " +
                        $"| {l.WindowSeconds:F1} |");
                }
            }
        }

        if (result.Scenarios.Any(s => s.Steps.Count > 1 || s.Steps.Any(step => step.Windows.Count > 0)))
        {
            md.AppendLine();
            md.AppendLine("Per step, and per window of a long step (syncs meant to start during it; seconds of the run):");
            md.AppendLine();
            md.AppendLine("| scenario | step | target syncs/s | syncs | failed | p50 | p99 | max |");
            md.AppendLine("|---|---|---|---|---|---|---|---|");
            foreach (var s in result.Scenarios)
            {
                foreach (var step in s.Steps)
                {
                    var rate = step.RampTo is { } to ? $"{step.Rate:0.#} to {to:0.#}" : step.Rate.ToString("0.#", c);
                    md.AppendLine(
                        c,
                        $"| {s.Name} | {step.Step + 1} ({step.FromSecond:0.#}-{step.ToSecond:0.#} s) " +
                        $"| {rate} | {step.Syncs:N0} | {step.Failed:N0} | {step.P50:F2} | {step.P99:F2} | {step.Max:F2} |");
                    foreach (var w in step.Windows)
                    {
                        md.AppendLine(
                            c,
                            $"| {s.Name} | {step.Step + 1} window {w.Window + 1} ({w.FromSecond:0.#}-{w.ToSecond:0.#} s) " +
                            $"| {rate} | {w.Syncs:N0} | {w.Failed:N0} | {w.P50:F2} | {w.P99:F2} | {w.Max:F2} |");
                    }
                }
            }
        }

        if (result.Baseline.Count > 0)
        {
            md.AppendLine();
            md.AppendLine("Service over raw PostgreSQL (the same SQL, prepared, no service in front), same run:");
            md.AppendLine();
            md.AppendLine("| read | transport | step | p50 service / raw | p99 service / raw |");
            md.AppendLine("|---|---|---|---|---|");
            foreach (var b in result.Baseline)
            {
                md.AppendLine(
                    c,
                    $"| {b.Read} | {b.Transport} | {(b.Step is { } step ? (step + 1).ToString(c) : "whole run")} | {b.ServiceP50:F2} / " +
                    $"{b.PostgresP50:F2} ms = {b.P50Ratio:F1}x | {b.ServiceP99:F2} / {b.PostgresP99:F2} ms = {b.P99Ratio:F1}x |");
            }
        }

        md.AppendLine();
        md.AppendLine("| check | limit | actual | result |");
        md.AppendLine("|---|---|---|---|");
        foreach (var check in result.Checks)
        {
            md.AppendLine(
                c, $"| {check.Subject} {check.Metric} | {check.Limit:0.###} | {check.Actual:0.###} | {(check.Passed ? "pass" : "FAIL")} |");
        }

        md.AppendLine();
        md.AppendLine(result.Verdict);
        return md.ToString();
    }
}
