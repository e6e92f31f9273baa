#!/usr/bin/env python3
"""Sorts `perf script` samples of the service into the parts of a request they were spent in.

Reads perf script's text on stdin (one sample per block, frames leaf first) and writes Markdown:
the share of samples per part, each sample going to the first frame from the leaf that names a
part (so a function called by the request log line counts for the log line, not for the code that
called the logger), then the hottest functions by samples spent in them.
"""
import argparse
import collections
import re
import sys

# The first pattern that matches a frame names its part; frames are tried leaf first.
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
COMPILED = [(name, re.compile(pattern)) for name, pattern in PARTS]
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


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--read", default="?")
    parser.add_argument("--rate", default="")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()

    parts, leaves, total = collections.Counter(), collections.Counter(), 0
    for stack in samples(sys.stdin):
        total += 1
        leaves[LEAF_NOISE.sub("", stack[0]).strip()[:140]] += 1
        part = next((name for frame in stack for name, pattern in COMPILED if pattern.search(frame)), "other")
        parts[part] += 1
    if total == 0:
        sys.exit("no samples: was perf allowed to sample the service?")

    print(f"# Where the service's CPU goes: {args.read}" + (f" at {args.rate} req/s" if args.rate else ""))
    print()
    print(f"{total} samples. Each goes to the first frame from the leaf that names a part.")
    print()
    print("| part of the request | share of CPU samples |")
    print("|---|---|")
    for name in [n for n, _ in PARTS] + ["other"]:
        if parts[name]:
            print(f"| {name} | {100 * parts[name] / total:.1f}% |")
    print()
    print(f"Hottest functions (samples spent in the function itself, top {args.top}):")
    print()
    print("| function | share |")
    print("|---|---|")
    for name, count in leaves.most_common(args.top):
        print(f"| `{name.replace('|', '/')}` | {100 * count / total:.1f}% |")


if __name__ == "__main__":
    main()
