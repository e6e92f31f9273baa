#!/usr/bin/env python3
"""Figures of load/bench/scale.sh from the simulator's result.json files and the script's steps.tsv.

  scale_stats.py step RESULT_JSON             one run's only scenario: rate, syncs, failed %, within 200 ms %,
                                              p95, p99, p99.9, max (ms), generator CPU (% of one core), tab-separated
  scale_stats.py line TSV_LINE CLK_TCK        the same step in words, with CPU and reads per request
  scale_stats.py window RESULT_JSON CPU_SAMPLES   service and PostgreSQL CPU ticks over the run's load window
  scale_stats.py holds TSV_LINE               exit 0 when the step held the SLA (p99 <= 200 ms, <= 0.1% failed)
  scale_stats.py cold RESULT_JSON T0 FIRST_ANSWER METHOD   the cold start in markdown
  scale_stats.py summary OUT USERS RATES STEP_SECONDS   the whole run in markdown (the benchmark's table shape)
"""
import glob
import json
import os
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
          f"SLA: p99 <= {SLA_MS:.0f} ms and <= {SLA_FAILED_PCT}% failed. Every report.html is in the run's folder.\n")
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
                steps = [r for r in rows if r["size"] == size and r["read"] == read and r["transport"] == "rest"]
                if not steps:
                    continue
                held = [r for r in steps if holds(r)]
                r = max(held, key=lambda x: x["rate"]) if held else steps[0]
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
    if os.path.exists(cold_md):
        print()
        print(open(cold_md).read())


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
    else:
        sys.exit(f"unknown command {command}")
