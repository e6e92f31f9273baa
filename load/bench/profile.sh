#!/usr/bin/env bash
# Where the service's CPU and allocations go under one REST load: while wrk drives it flat out,
# dotnet-trace samples the service's CPU stacks (collect-linux, cpu-sampling) and then its allocations
# (collect, gc-verbose: one sample per ~100 KB allocated, with its stack and type), and dotnet-counters
# records the runtime's counters. load/bench/trace-report turns each trace into collapsed stacks, and
# profile_stacks.py sorts every stack into the part of the request it was spent in (the request log
# line, metrics and traces, authentication, admission, the storage pipeline, Npgsql, Kestrel, ...) by
# the frame nearest the leaf that names one, and lists the hottest functions and allocated types.
#
#   load/bench/profile.sh --pg "host=127.0.0.1 port=5433 dbname=kobo_sync user=kobo password=..." \
#       [--url http://127.0.0.1:5080] [--read user|highlights|book|push|kobo] [--warmup 40] [--seconds 15]
#   load/bench/profile.sh --external [--url http://127.0.0.1:5080] [--seconds 15] [--pid PID] [--out DIR]
#
# The loads are cost.sh's (load/bench/lib.sh): the three reads, a push of 10 changes, a Kobo sync page.
# --external starts no load: it samples the service under whatever drives it now (a release-gate run,
# the simulator, a deployed fleet's balancer), which is how a sync's cost at a fixed rate is profiled,
# with its idle wake-ups and new connections, rather than flat out over a few kept-alive connections.
# --pid samples another .NET process instead of the service (a simulator shard: the generator's own
# cost); the figures per request still count the service's requests.
#
# Needs dotnet-trace and dotnet-counters (dotnet tool install -g dotnet-trace / dotnet-counters) and
# the right to trace the service (same user, or root; collect-linux needs root). The service's signing
# key in $AUTH_SIGNING_KEY. Targets loopback only; wrk runs for the warm-up and the three phases and
# stops by itself. Results: load/results/profile-<read>-<time>/ (git-ignored): profile.md, the traces,
# the collapsed stacks (cpu.folded, alloc.folded; flame-graph tools read them) and counters.csv.
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

url=http://127.0.0.1:5080 pg="" read=user warmup=40 seconds=15 connections=32 out="" pid=""
while [ $# -gt 0 ]; do
  case "$1" in
    --url) url="$2"; shift 2 ;;
    --pg) pg="$2"; shift 2 ;;
    --read) read="$2"; shift 2 ;;
    --external) read=external; shift ;;
    --out) out="$2"; shift 2 ;;
    --pid) pid="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$pg" ] || [ "$read" = external ] || { echo "--pg \"host=... port=... dbname=... user=... password=...\" is required" >&2; exit 2; }
case "$read" in user|highlights|book|push|kobo|external) ;; *) echo "--read must be user, highlights, book, push or kobo" >&2; exit 2 ;; esac
bench_require_loopback "$url"
tools="${DOTNET_TOOLS:-$HOME/.dotnet/tools}"
export PATH="$PATH:$tools"
for tool in wrk dotnet-trace dotnet-counters psql ss curl python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install wrk postgresql-client iproute2 curl python3; dotnet tool install -g dotnet-trace dotnet-counters)" >&2; exit 2; }
done

[ -n "$pid" ] || pid=$(bench_listener "$(bench_port_of "${url#http://}")" || true)
[ -n "$pid" ] || { echo "no process listens at $url" >&2; exit 2; }
[ -d "/proc/$pid" ] || { echo "no process $pid" >&2; exit 2; }

[ -n "$out" ] || out="load/results/profile-$read-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"; kill "${load:-}" 2>/dev/null || true' EXIT
if [ "$read" != external ]; then
  bench_mint_tokens "$pg" "$work/tokens.tsv" >/dev/null
  bench_prepare_mode "$read" "$pg" "$url" "$work"
fi
[ "$read" != push ] || connections=$BENCH_PUSH_CONNECTIONS
[ "$read" != kobo ] || connections=$BENCH_KOBO_CONNECTIONS
dotnet build load/bench/trace-report -c Release -v q -nologo >/dev/null

# Requests answered so far, from the service's /metrics.
requests() { curl -fsS "$url/metrics" | awk '/^http_server_request_duration_seconds_count/ {n += $2} END {printf "%.0f", n}'; }
duration="00:00:00:$(printf '%02d' "$seconds")"

if [ "$read" = external ]; then
  served=$(requests 2>/dev/null || true)
  [ "${served:-0}" -gt 0 ] || { echo "the service at $url has served no request: start the load first" >&2; exit 2; }
  echo "==> the load already running: three phases of ${seconds}s"
else
  echo "==> wrk: $read for ${warmup}s of warm-up, then three phases of ${seconds}s"
  bench_wrk_mode "$read" "$url" "$((warmup + 3 * seconds + 20))" "$connections" "$work/tokens.tsv" "$work/wrk.out" &
  load=$!
  sleep "$warmup"
fi

echo "==> CPU samples (dotnet-trace collect-linux, cpu-sampling)"
r0=$(requests)
dotnet-trace collect-linux -p "$pid" --profile cpu-sampling --duration "$duration" -o "$out/cpu.nettrace" >"$work/cpu.log" 2>&1 \
  || { cat "$work/cpu.log" >&2; exit 1; }
cpu_requests=$(( $(requests) - r0 ))

echo "==> allocation samples (dotnet-trace collect, gc-verbose)"
r0=$(requests); a0=$(bench_allocated "$url")
dotnet-trace collect -p "$pid" --profile gc-verbose --duration "$duration" -o "$out/alloc.nettrace" >"$work/alloc.log" 2>&1 \
  || { cat "$work/alloc.log" >&2; exit 1; }
alloc_requests=$(( $(requests) - r0 )); alloc_bytes=$(( $(bench_allocated "$url") - a0 ))

echo "==> runtime counters (dotnet-counters, System.Runtime)"
r0=$(requests)
dotnet-counters collect -p "$pid" --counters System.Runtime --format csv --duration "$duration" -o "$out/counters.csv" >"$work/counters.log" 2>&1 \
  || { cat "$work/counters.log" >&2; exit 1; }
counter_requests=$(( $(requests) - r0 ))
if [ -n "${load:-}" ]; then
  kill "$load" 2>/dev/null || true
  wait "$load" 2>/dev/null || true
fi

report=load/bench/trace-report/bin/Release/net10.0/Kobo.Sync.TraceReport.dll
dotnet "$report" "$out/cpu.nettrace" "$out/cpu" --pid "$pid" >"$work/cpu-report.log"
dotnet "$report" "$out/alloc.nettrace" "$out/alloc" --pid "$pid" >"$work/alloc-report.log"
{
  echo "# Profile of $read: $(nproc) cores, $(uname -m), $(date -u +%Y-%m-%d), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "$(( cpu_requests / seconds )) req/s while CPU was sampled, $(( alloc_requests / seconds )) while allocations were."
  echo "Bytes allocated per request (the service's own counter, over the allocation phase): $(( alloc_bytes / (alloc_requests > 0 ? alloc_requests : 1) ))."
  echo
  python3 load/bench/profile_stacks.py --folded "$out/cpu/cpu.folded" --read "$read" --rate "$(( cpu_requests / seconds ))"
  echo
  python3 load/bench/profile_stacks.py --folded "$out/alloc/alloc.folded" --allocations --requests "$alloc_requests" --read "$read"
  echo
  echo "## Runtime counters over ${seconds}s ($(( counter_requests / seconds )) req/s): mean of each"
  echo
  python3 load/bench/profile_stacks.py --counters "$out/counters.csv"
} >"$out/profile.md"
cat "$out/profile.md"
echo "==> $out/profile.md"
