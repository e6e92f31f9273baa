#!/usr/bin/env python3
"""Sorts the service's sampled stacks into the parts of a request they were spent in.

Reads perf script's text on stdin (one sample per block, frames leaf first), or with --folded a file
of collapsed stacks (root first, ';' between frames, then a weight: samples, or bytes for sampled
allocations, as load/bench/trace-report writes them from a dotnet-trace file), and writes Markdown:
the share per part, each stack going to the first frame from the leaf that names a part (so a
function called by the request log line counts for the log line, not for the code that called the
logger), then the hottest functions by what was spent in them (for allocations: the frame that
allocated, and the type). With --requests, the weight per request too (bytes allocated per request).
"""
import argparse
import collections
import csv
import re
import sys

# The first pattern that matches a frame names its part; frames are tried leaf first. Case is ignored:
# perf names modules as their files are named, dotnet-trace in lower case.
PARTS = [
    ("garbage collector", r"gc_heap|GCHeap::|WKS::|SVR::"),
    ("JIT compiler", r"libclrjit"),
    ("request log line (Serilog: format, buffer, stdout)", r"\[Serilog|ProductionJsonFormatter|BufferedStdoutSink|RequestLogging"),
    ("metrics and traces (OpenTelemetry, System.Diagnostics)", r"\[OpenTelemetry|System\.Diagnostics\.Metrics|System\.Diagnostics\.Activity|RequestTelemetryMiddleware"),
    ("authentication (JWT, token cache)", r"IdentityModel|DeviceTokenHandler|ValidatedTokenCache|AuthenticationHandler"),
    ("admission (limiters, device share, answer buffering)", r"System\.Threading\.RateLimiting|Kobo\.Sync\.SyncApi\.Infrastructure\.Admission"),
    ("storage pipeline (Polly, request budget)", r"\[Polly|StoragePipelines|RequestBudget"),
    ("Npgsql", r"\[Npgsql\]"),
    ("read coalescer", r"ReadCoalescer"),
    ("JSON (System.Text.Json)", r"System\.Text\.Json"),
    ("the read itself (API, domain, store)", r"Kobo\.Sync\.(SyncApi\.Apis|Domain|SyncApi\.Infrastructure\.Storage)"),
    ("Kestrel (HTTP/1.1, connections)", r"Kestrel"),
    ("other ASP.NET Core (routing, middleware pipeline)", r"\[Microsoft\.AspNetCore"),
    ("socket calls (kernel)", r"tcp_|sock_|__sys_sendto|__sys_recvfrom|epoll"),
    ("thread pool, scheduling (kernel and runtime)", r"finish_task_switch|schedule|futex|ThreadPool|PortableThreadPool"),
]
COMPILED = [(name, re.compile(pattern, re.IGNORECASE)) for name, pattern in PARTS]
# Offsets, tiers and map files differ between samples of one function.
LEAF_NOISE = re.compile(r"\+0x[0-9a-f]+|\[(Optimized|Tier|Instrumented)\w*\]|/tmp/perf-\d+\.map")
FRAME = re.compile(r"^\s*[0-9a-f]+\s+(.*?)(?:\s+\((.*)\))?$")


def samples(lines):
    stack = []
    for line in lines:
        if not line.strip():
            if stack:
                yield stack
            stack = []
        elif line[0] in " \t":
            match = FRAME.match(line)
            if match:
                stack.append(f"{match.group(1)} {match.group(2) or ''}")
    if stack:
        yield stack


def folded(path):
    """(stack leaf first, weight) per line of a collapsed-stacks file."""
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            stack, _, weight = line.rstrip("\n").rpartition(" ")
            if stack:
                yield list(reversed(stack.split(";"))), int(weight)


def short(frame):
    return LEAF_NOISE.sub("", frame).strip()[:140].replace("|", "/")


def counters(path):
    """Markdown: the mean of each counter dotnet-counters collect wrote to its CSV."""
    values = collections.defaultdict(list)
    with open(path, encoding="utf-8") as rows:
        for row in csv.DictReader(rows):
            try:
                values[(row["Counter Name"], row.get("Counter Type", ""))].append(float(row["Mean/Increment"]))
            except (KeyError, ValueError):
                continue
    print("| counter | mean |")
    print("|---|---|")
    for (name, kind), series in sorted(values.items()):
        print(f"| {name} ({kind}) | {sum(series) / len(series):,.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--read", default="?")
    parser.add_argument("--rate", default="")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--folded", help="a collapsed-stacks file instead of perf script on stdin")
    parser.add_argument("--allocations", action="store_true", help="the folded stacks are sampled allocations (bytes), each ending in a 'new Type' frame")
    parser.add_argument("--requests", type=int, default=0, help="requests served while sampling, for a figure per request")
    parser.add_argument("--counters", help="a dotnet-counters CSV: print the mean of each counter instead")
    args = parser.parse_args()
    if args.counters:
        counters(args.counters)
        return

    stacks = folded(args.folded) if args.folded else ((stack, 1) for stack in samples(sys.stdin))
    parts, leaves, types, total = collections.Counter(), collections.Counter(), collections.Counter(), 0
    for stack, weight in stacks:
        if args.allocations:
            types[stack[0].removeprefix("new ")[:140]] += weight
            stack = stack[1:] or ["?"]
        total += weight
        leaves[short(stack[0])] += weight
        part = next((name for frame in stack for name, pattern in COMPILED if pattern.search(frame)), "other")
        parts[part] += weight
    if total == 0:
        sys.exit("no samples: was the profiler allowed to sample the service?")

    what = "allocations" if args.allocations else "CPU"
    unit = "bytes" if args.allocations else "samples"
    per = (lambda w: f" | {w / args.requests:,.0f}") if args.requests else (lambda w: "")
    per_head = " per request |" if args.requests else ""
    rule = "|---|---|" + ("---|" if args.requests else "")
    print(f"# Where the service's {what} {'go' if args.allocations else 'goes'}: {args.read}" + (f" at {args.rate} req/s" if args.rate else ""))
    print()
    print(f"{total:,} {unit} sampled" + (f" over {args.requests:,} requests" if args.requests else "") + ". Each stack goes to the first frame from the leaf that names a part.")
    print()
    print(f"| part of the request | share of {what} |" + (f" {unit}{per_head}" if args.requests else ""))
    print(rule)
    for name in [n for n, _ in PARTS] + ["other"]:
        if parts[name]:
            print(f"| {name} | {100 * parts[name] / total:.1f}%{per(parts[name])} |")
    print()
    print(f"Hottest functions ({unit} spent in the function itself" + (", the function that allocated" if args.allocations else "") + f", top {args.top}):")
    print()
    print("| function | share |" + per_head)
    print(rule)
    for name, weight in leaves.most_common(args.top):
        print(f"| `{name}` | {100 * weight / total:.1f}%{per(weight)} |")
    if args.allocations:
        print()
        print(f"Types allocated (top {args.top}):")
        print()
        print("| type | share |" + per_head)
        print(rule)
        for name, weight in types.most_common(args.top):
            print(f"| `{name.replace('|', '/')}` | {100 * weight / total:.1f}%{per(weight)} |")


if __name__ == "__main__":
    main()
