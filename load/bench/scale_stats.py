#!/usr/bin/env python3
"""Figures of load/bench/scale.sh from the simulator's result.json files and the script's steps.tsv.

  scale_stats.py step RESULT_JSON             one run's only scenario: rate, syncs, failed %, within 200 ms %,
                                              p95, p99, p99.9, max (ms), generator CPU (% of one core), tab-separated
  scale_stats.py line TSV_LINE CLK_TCK        the same step in words, with CPU and reads per request
  scale_stats.py window RESULT_JSON CPU_SAMPLES   service and PostgreSQL CPU ticks over the run's load window
  scale_stats.py holds TSV_LINE               exit 0 when the step held the SLA (p99 <= 200 ms, <= 0.1% failed)
  scale_stats.py cold RESULT_JSON T0 FIRST_ANSWER METHOD   the cold start in markdown
  scale_stats.py summary OUT USERS RATES STEP_SECONDS   the whole run in markdown (the benchmark's table shape)
  scale_stats.py report OUT                   OUT/report.html: the summary with the latency-over-time plots of the
                                              full size's steps and the cold start, and the cost-by-size plots
"""
import glob
import html
import json
import math
import os
import re
import sys

SLA_MS = 200.0
SLA_FAILED_PCT = 0.1
SUB_BUCKETS, HALF = 2048, 1024
COLUMNS = ["size", "read", "transport", "rate", "syncs", "failed_pct", "within_pct", "p95", "p99", "p999", "max",
           "generator_cpu", "service_ticks", "pg_ticks", "blks_read", "disk_bytes"]
READS = {"highlights-by-user": "highlights by user", "highlights-by-book": "highlights by user+book", "user-by-id": "user by id"}
FRONTS = {"rest": "REST", "grpc": "gRPC", "postgres": "raw PostgreSQL"}


def highest_value(index):
    """The highest latency (µs) counted in a bucket of the simulator's LatencyHistogram."""
    if index < SUB_BUCKETS:
        return index
    shift = (index - SUB_BUCKETS) // HALF + 1
    sub = HALF + (index - SUB_BUCKETS) % HALF
    return (sub << shift) + (1 << shift) - 1


def within(histogram, failed, limit_ms=SLA_MS):
    """% of syncs answered within the limit; a failed sync never counts as within."""
    buckets = histogram.get("buckets", [])
    total = sum(c for _, c in buckets)
    if total == 0:
        return 0.0
    fast = sum(c for i, c in buckets if highest_value(i) <= limit_ms * 1000)
    return max(0, fast - failed) * 100.0 / total


def merged(points):
    buckets = {}
    for p in points:
        for i, c in p["histogram"]["buckets"]:
            buckets[i] = buckets.get(i, 0) + c
    return {"buckets": sorted(buckets.items())}


def scenario(path):
    result = json.load(open(path))
    return result, result["scenarios"][0]


def step(path):
    if not os.path.exists(path):  # the run did not end in its time: nothing answered in time counts
        rate = os.path.basename(os.path.dirname(path)).rsplit("-", 1)[-1]
        print("\t".join([rate, "0", "100.000", "0.000", "0", "0", "0", "0", "0"]))
        return
    result, s = scenario(path)
    latency = s["latency"]
    rate = s["steps"][0]["rate"] if s.get("steps") else s["throughputPerSecond"]
    failed_pct = s["failed"] * 100.0 / s["syncs"] if s["syncs"] else 100.0
    cpu = result["generator"]["cpuMean"] * 100 * result["generator"]["cores"]
    print("\t".join(str(v) for v in [
        f"{rate:g}", s["syncs"], f"{failed_pct:.3f}", f"{within(s['histogram'], s['failed']):.3f}",
        f"{latency['p95']:.2f}", f"{latency['p99']:.2f}", f"{latency['p999']:.2f}", f"{latency['max']:.2f}", f"{cpu:.0f}"]))


def window(path, cpu_path):
    """Service and PostgreSQL CPU ticks over a run's load window (from its start for its duration),
    interpolated between the sampler's readings; the whole sampled span when the run left no result."""
    samples = []
    for line in open(cpu_path):
        parts = line.split()
        if len(parts) == 3:
            samples.append(tuple(float(p) for p in parts))
    if len(samples) < 2:
        print("0\t0")
        return
    if os.path.exists(path):
        from datetime import datetime
        result = json.load(open(path))
        start = datetime.fromisoformat(result["started"].replace("Z", "+00:00")).timestamp()
        end = start + result["durationSeconds"]
    else:
        start, end = samples[0][0], samples[-1][0]

    def at(t, column):
        if t <= samples[0][0]:
            return samples[0][column]
        for (t0, *a), (t1, *b) in zip(samples, samples[1:]):
            if t0 <= t <= t1:
                return a[column - 1] + (b[column - 1] - a[column - 1]) * (t - t0) / max(t1 - t0, 1e-9)
        return samples[-1][column]

    print(f"{at(end, 1) - at(start, 1):.1f}\t{at(end, 2) - at(start, 2):.1f}")


def row(line):
    values = dict(zip(COLUMNS, line.rstrip("\n").split("\t")))
    for k in [COLUMNS[0]] + COLUMNS[3:]:
        values[k] = float(values[k])
    return values


def per_request(r, key, tick):
    return r[key] / tick * 1e6 / r["syncs"] if r["syncs"] else 0.0


def describe(r, tick):
    return (f"{r['within_pct']:.2f}% within 200 ms, p95 {r['p95']:.1f} ms, p99 {r['p99']:.1f} ms, p99.9 {r['p999']:.1f} ms, "
            f"max {r['max']:.1f} ms, {r['failed_pct']:.2f}% failed; generator CPU {r['generator_cpu']:.0f}% of a core; "
            f"per request: service {per_request(r, 'service_ticks', tick):.0f} µs CPU, PostgreSQL {per_request(r, 'pg_ticks', tick):.0f} µs CPU, "
            f"{r['blks_read'] / max(r['syncs'], 1):.2f} blocks missed, {r['disk_bytes'] / max(r['syncs'], 1):.0f} disk bytes read")


def holds(r):
    return r["syncs"] > 0 and r["p99"] <= SLA_MS and r["failed_pct"] <= SLA_FAILED_PCT


def cold(path, t0, first_answer, method):
    result, s = scenario(path)
    started = result["started"]
    # The run's start (wall clock) against the moment PostgreSQL was started.
    from datetime import datetime
    offset = datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp() - float(t0)
    timeline = s["timeline"]
    print("## Cold start (user by id over REST, every user once, shuffled)\n")
    print(f"- page cache emptied with: {method}")
    print(f"- PostgreSQL started, then the service at once; the simulator's run started {offset:.1f} s after PostgreSQL was started")
    if first_answer == "none":
        print("- first answer: none within the probe's 60 s")
    else:
        print(f"- first answer: {float(first_answer):.2f} s after PostgreSQL was started (GET /v1/users/N for the last user N, with its token, polled every 50 ms)")
    print(f"- rate {s['steps'][0]['rate']:g}/s from the run's first second; {s['syncs']} reads, {s['failed']} failed\n")
    print("| first | reads | within 200 ms | p99 | max |")
    print("|---|---|---|---|---|")
    for window in (10, 30, 60):
        points = [p for p in timeline if p["second"] < window]
        if not points or window > timeline[-1]["second"] + 1:
            continue
        n = sum(p["syncs"] for p in points)
        f = sum(p["failed"] for p in points)
        print(f"| {window} s | {n} | {within(merged(points), f):.2f}% | {max(p['p99'] for p in points):.1f} ms* | {max(p['max'] for p in points):.1f} ms |")
    print("\n\\* the highest per-second p99 in the window.\n")


def summary(out, users, rates, step_seconds):
    tick = float(open(os.path.join(out, "clk_tck")).read())
    lines = open(os.path.join(out, "steps.tsv")).read().splitlines()[1:]
    rows = [row(line) for line in lines]
    mem_gb = int(open("/proc/meminfo").readline().split()[1]) / 1024 / 1024
    machine = f"this machine: {os.cpu_count()} cores, {mem_gb:.0f} GB, service + PostgreSQL + generator on it"
    print(f"# Scale run: {int(users):,} users\n")
    print(f"Steps of {step_seconds} s at constant rate ({rates}/s), uniform arrivals, latency from the intended start; "
          f"SLA: p99 <= {SLA_MS:.0f} ms and <= {SLA_FAILED_PCT}% failed. Each size settled first (vacuumed once, checkpointed, "
          "the OS's dirty pages flushed, autovacuum idle); each read over each front warmed up at the first rate, unrecorded. "
          "Every report.html is in the run's folder.\n")
    overrides = os.path.join(out, "pg-overrides")
    if os.path.exists(overrides):
        print("PostgreSQL settings overridden for this run (large-data.conf otherwise): "
              + ", ".join(f"`{line.strip()}`" for line in open(overrides) if line.strip()) + "\n")
    print("## Results (the benchmark's table shape)\n")
    print("| case | hardware | result |")
    print("|---|---|---|")
    full = [r for r in rows if r["size"] == float(users)]
    for read, name in READS.items():
        for front, label in FRONTS.items():
            steps = [r for r in full if r["read"] == read and r["transport"] == front]
            if not steps:
                continue
            held = [r for r in steps if holds(r)]
            parts = [f"{r['rate']:,.0f} req/s with {r['within_pct']:.2f}% < 200 ms (p99 {r['p99']:.1f} ms, max {r['max']:.0f} ms)" for r in steps]
            best = f"highest rate holding the SLA: {max(r['rate'] for r in held):,.0f} req/s" if held else "no step held the SLA"
            print(f"| {name}, {label} | {machine} | {best}; " + "; ".join(parts) + " |")
    cold_md = os.path.join(out, "cold.md")
    if os.path.exists(cold_md):
        print(f"| user by id, cold start, REST | {machine} | see below |")
    print("\n## Every step\n")
    print("| users | read | front | rate | within 200 ms | p95 | p99 | p99.9 | max | failed | generator CPU | service CPU/req | PostgreSQL CPU/req | blocks missed/req | disk bytes/req |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['size']:,.0f} | {READS[r['read']]} | {FRONTS[r['transport']]} | {r['rate']:,.0f} | {r['within_pct']:.2f}% | {r['p95']:.1f} | {r['p99']:.1f} | "
              f"{r['p999']:.1f} | {r['max']:.1f} | {r['failed_pct']:.2f}% | {r['generator_cpu']:.0f}% | {per_request(r, 'service_ticks', tick):.0f} µs | "
              f"{per_request(r, 'pg_ticks', tick):.0f} µs | {r['blks_read'] / max(r['syncs'], 1):.2f} | {r['disk_bytes'] / max(r['syncs'], 1):,.0f} |")
    sizes = sorted({r["size"] for r in rows})
    if len(sizes) > 1 or any(r["transport"] == "rest" for r in rows):
        print("\n## Growth (REST; at each size the highest step holding the SLA, else the lowest step)\n")
        print("| users | read | rate at SLA | p99 | service CPU/req | PostgreSQL CPU/req | blocks missed/req | disk bytes/req |")
        print("|---|---|---|---|---|---|---|---|")
        for size in sizes:
            for read, name in READS.items():
                r, held = chosen(rows, size, read)
                if not r:
                    continue
                rate = f"{r['rate']:,.0f}" if held else f"none (at {r['rate']:,.0f}: p99 {r['p99']:.0f} ms)"
                print(f"| {size:,.0f} | {name} | {rate} | {r['p99']:.1f} ms | {per_request(r, 'service_ticks', tick):.0f} µs | "
                      f"{per_request(r, 'pg_ticks', tick):.0f} µs | {r['blks_read'] / max(r['syncs'], 1):.2f} | {r['disk_bytes'] / max(r['syncs'], 1):,.0f} |")
    seeds = sorted(glob.glob(os.path.join(out, "seed-*.json")), key=lambda p: json.load(open(p))["users"])
    if seeds:
        print("\n## Seeds (this run's; a size seeded by an earlier run is not repeated)\n")
        print("| users | elapsed | load | keys | rows/s users / ownerships / highlights | disk | bytes per user | per highlight | per ownership | per user row |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for path in seeds:
            s = json.load(open(path))
            t = {x["table"]: x for x in s["tables"]}
            print(f"| {s['users']:,} | {s['elapsedSeconds']:.0f} s | {s['loadSeconds']:.0f} s | {s['keysSeconds']:.0f} s | "
                  f"{t['users']['rowsPerSecond']:,.0f} / {t['users_books']['rowsPerSecond']:,.0f} / {t['highlights']['rowsPerSecond']:,.0f} | "
                  f"{s['totalBytes'] / 1073741824:.2f} GiB | {s['bytesPerUser']:,.0f} | {t['highlights']['bytesPerRow']:.0f} | "
                  f"{t['users_books']['bytesPerRow']:.0f} | {t['users']['bytesPerRow']:.0f} |")
    for part in (cold_md, os.path.join(out, "settings.md")):
        if os.path.exists(part):
            print()
            print(open(part).read())


def chosen(rows, size, read):
    """The growth row of a read at a size: the highest REST step holding the SLA, else the lowest step."""
    steps = [r for r in rows if r["size"] == size and r["read"] == read and r["transport"] == "rest"]
    if not steps:
        return None, False
    held = [r for r in steps if holds(r)]
    return (max(held, key=lambda x: x["rate"]), True) if held else (steps[0], False)


COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]


def ticks(lo, hi, log):
    if log:
        first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        return [10.0 ** e * m for e in range(first, last + 1) for m in (1, 2, 5) if lo <= 10.0 ** e * m <= hi] or [lo, hi]
    span = hi - lo or 1.0
    step = 10 ** math.floor(math.log10(span / 5))
    step *= next(m for m in (1, 2, 5, 10) if span / (step * m) <= 6)
    return [lo + i * step for i in range(int(span / step) + 1)]


def label(v):
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def chart(title, xlabel, ylabel, series, logx=False, logy=False):
    """An inline SVG line chart; series: (name, [(x, y)], dashed). Log axes drop points at or below 0."""
    width, height, left, right, top, bottom = 820, 320, 70, 230, 30, 45
    keep = lambda v, log: v > 0 if log else True
    series = [(n, [(x, y) for x, y in pts if keep(x, logx) and keep(y, logy)], d) for n, pts, d in series]
    points = [p for _, pts, _ in series for p in pts]
    if not points:
        return f"<h3>{html.escape(title)}</h3><p>no data</p>"
    xs, ys = [x for x, _ in points], [y for _, y in points]
    x0, x1 = min(xs), max(xs)
    y0, y1 = (min(ys), max(ys)) if logy else (0.0, max(ys))
    if x0 == x1:
        x0, x1 = (x0 / 2, x1 * 2) if logx else (x0 - 1, x1 + 1)
    if y0 == y1:
        y0, y1 = (y0 / 2, y1 * 2) if logy else (y0, y1 + 1)
    xt, yt = ticks(x0, x1, logx), ticks(y0, y1, logy)
    x0, x1 = min(x0, xt[0]), max(x1, xt[-1])
    y0, y1 = min(y0, yt[0]), max(y1, yt[-1])
    f = lambda v, lo, hi, log: (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)) if log else (v - lo) / (hi - lo)
    px = lambda x: left + f(x, x0, x1, logx) * (width - left - right)
    py = lambda y: height - bottom - f(y, y0, y1, logy) * (height - top - bottom)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="18" font-size="13" font-weight="bold">{html.escape(title)}</text>']
    for t in xt:
        svg.append(f'<line x1="{px(t):.1f}" y1="{top}" x2="{px(t):.1f}" y2="{height - bottom}" stroke="#eee"/>'
                   f'<text x="{px(t):.1f}" y="{height - bottom + 14}" text-anchor="middle">{label(t)}</text>')
    for t in yt:
        svg.append(f'<line x1="{left}" y1="{py(t):.1f}" x2="{width - right}" y2="{py(t):.1f}" stroke="#eee"/>'
                   f'<text x="{left - 4}" y="{py(t) + 4:.1f}" text-anchor="end">{label(t)}</text>')
    svg.append(f'<text x="{(left + width - right) / 2}" y="{height - 8}" text-anchor="middle">{html.escape(xlabel)}</text>'
               f'<text transform="translate(14 {(top + height - bottom) / 2}) rotate(-90)" text-anchor="middle">{html.escape(ylabel)}</text>')
    for i, (name, pts, dashed) in enumerate(series):
        colour = COLOURS[i % len(COLOURS)]
        dash = ' stroke-dasharray="5 3"' if dashed else ""
        if pts:
            path = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(pts))
            svg.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.6"{dash} points="{path}"/>')
            if len(pts) < 12:
                svg.extend(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{colour}"/>' for x, y in pts)
        ly = top + 14 * i + 8
        svg.append(f'<line x1="{width - right + 12}" y1="{ly}" x2="{width - right + 34}" y2="{ly}" stroke="{colour}" stroke-width="2"{dash}/>'
                   f'<text x="{width - right + 40}" y="{ly + 4}">{html.escape(name)}</text>')
    svg.append("</svg>")
    return "\n".join(svg)


def markdown_html(text):
    """The summary's markdown (headings, paragraphs, lists, tables) as HTML."""
    out, table = [], []

    def inline(t):
        t = html.escape(t)
        t = re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", t)
        return re.sub(r"`(.+?)`", r"<code>\1</code>", t)

    def flush():
        if table:
            cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table if not re.match(r"^\|[-| ]+\|$", line.strip())]
            out.append("<table>" + "".join("<tr>" + "".join(f"<{'th' if i == 0 else 'td'}>{inline(c)}</{'th' if i == 0 else 'td'}>" for c in row) + "</tr>"
                                            for i, row in enumerate(cells)) + "</table>")
            table.clear()
    for line in text.splitlines():
        if line.startswith("|"):
            table.append(line)
            continue
        flush()
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            out.append(f"<h{level + 1}>{inline(line.lstrip('#').strip())}</h{level + 1}>")
        elif line.startswith("- "):
            out.append(f"<li>{inline(line[2:])}</li>")
        elif line.strip():
            out.append(f"<p>{inline(line)}</p>")
    flush()
    return "\n".join(out)


def timeline(path, key):
    if not os.path.exists(path):
        return []
    return [(p["second"], p[key]) for p in scenario(path)[1]["timeline"]]


def report(out):
    tick = float(open(os.path.join(out, "clk_tck")).read())
    rows = [row(line) for line in open(os.path.join(out, "steps.tsv")).read().splitlines()[1:]]
    summary_md = os.path.join(out, "summary.md")
    parts = []
    sizes = sorted({r["size"] for r in rows})
    if sizes:
        full = max(sizes)
        parts.append(f"<h2>Latency over time at {full:,.0f} users</h2><p>The p99 of each second, step after step at rising rates "
                     "(a step's seconds follow the previous step's; the SLA is 200 ms).</p>")
        for read, name in READS.items():
            series = []
            for front, front_label in FRONTS.items():
                steps = sorted((r for r in rows if r["size"] == full and r["read"] == read and r["transport"] == front), key=lambda r: r["rate"])
                points, offset = [], 0
                for r in steps:
                    t = timeline(os.path.join(out, f"{full:.0f}-{read}-{front}-{r['rate']:.0f}", "result.json"), "p99")
                    points += [(offset + s + 1, v) for s, v in t]
                    offset += len(t)
                if points:
                    series.append((f"{front_label} p99", points, False))
            if series:
                parts.append(chart(f"{name}: p99 per second", "seconds of load (steps in order of rate)", "ms", series, logy=True))
        cold_result = os.path.join(out, "cold", "result.json")
        if os.path.exists(cold_result):
            parts.append(chart("cold start, user by id: per second", "seconds from the run's start", "ms",
                               [("p99", [(s + 1, v) for s, v in timeline(cold_result, "p99")], False),
                                ("p50", [(s + 1, v) for s, v in timeline(cold_result, "p50")], True)], logy=True))
    if len(sizes) > 1:
        parts.append("<h2>Cost by size (REST, at each size the highest step holding the SLA)</h2>")
        rate, cpu, reads = [], [], []
        for read, name in READS.items():
            picked = [(size, chosen(rows, size, read)) for size in sizes]
            picked = [(size, r, held) for size, (r, held) in picked if r]
            rate.append((name, [(size, r["rate"]) for size, r, held in picked if held], False))
            cpu.append((f"{name}: service", [(size, per_request(r, "service_ticks", tick)) for size, r, _ in picked], False))
            cpu.append((f"{name}: PostgreSQL", [(size, per_request(r, "pg_ticks", tick)) for size, r, _ in picked], True))
            reads.append((f"{name}: disk KB", [(size, r["disk_bytes"] / max(r["syncs"], 1) / 1024) for size, r, _ in picked], False))
            reads.append((f"{name}: blocks missed", [(size, r["blks_read"] / max(r["syncs"], 1)) for size, r, _ in picked], True))
        parts.append(chart("rate at the SLA by size", "users", "requests/s", rate, logx=True))
        parts.append(chart("CPU per request by size", "users", "µs per request", cpu, logx=True))
        parts.append(chart("disk reads per request by size", "users", "per request", reads, logx=True))
    body = markdown_html(open(summary_md).read()) if os.path.exists(summary_md) else ""
    page = ("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Kobo.Sync scale run</title><style>"
            "body{font-family:sans-serif;max-width:1200px;margin:2em auto;padding:0 1em}table{border-collapse:collapse;font-size:12px;margin:1em 0}"
            "td,th{border:1px solid #ccc;padding:2px 6px;text-align:left}svg{display:block;margin:1em 0}</style></head><body>"
            + "\n".join(parts) + "\n" + body + "</body></html>\n")
    path = os.path.join(out, "report.html")
    with open(path, "w") as f:
        f.write(page)
    print(path)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "step":
        step(sys.argv[2])
    elif command == "line":
        print(describe(row(sys.argv[2]), float(sys.argv[3])))
    elif command == "window":
        window(sys.argv[2], sys.argv[3])
    elif command == "holds":
        sys.exit(0 if holds(row(sys.argv[2])) else 1)
    elif command == "cold":
        cold(*sys.argv[2:6])
    elif command == "summary":
        summary(*sys.argv[2:6])
    elif command == "report":
        report(sys.argv[2])
    else:
        sys.exit(f"unknown command {command}")
