#!/usr/bin/env bash
# Where the service's CPU goes under one REST read: samples its stacks with perf while wrk drives the
# read flat out, then sorts every sample into the part of the request it was spent in (the request log
# line, metrics and traces, authentication, admission, the storage pipeline, Npgsql, the JIT, Kestrel,
# the socket calls, ...) by the frame nearest the leaf that names one, and lists the hottest functions.
#
#   load/bench/profile.sh --pg "host=127.0.0.1 port=5433 dbname=kobo_sync user=kobo password=..." \
#       [--url http://127.0.0.1:5080] [--read user|highlights] [--warmup 40] [--seconds 15]
#
# The service must run with DOTNET_PerfMapEnabled=1 and DOTNET_EnableWriteXorExecute=0, so that perf
# can name JIT-compiled code (/tmp/perf-<pid>.map), and with its signing key in $AUTH_SIGNING_KEY.
# perf (Debian: linux-perf) needs to be allowed to sample the process (root, or
# kernel.perf_event_paranoid <= 1). Targets loopback only; wrk runs for --warmup + --seconds and stops
# by itself. Results: load/results/profile-<read>-<time>/ (git-ignored): profile.md, perf.data.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

url=http://127.0.0.1:5080 pg="" read=user warmup=40 seconds=15 connections=32
while [ $# -gt 0 ]; do
  case "$1" in
    --url) url="$2"; shift 2 ;;
    --pg) pg="$2"; shift 2 ;;
    --read) read="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -n "$pg" ] || { echo "--pg \"host=... port=... dbname=... user=... password=...\" is required" >&2; exit 2; }
case "$read" in user|highlights) ;; *) echo "--read must be user or highlights" >&2; exit 2 ;; esac
bench_require_loopback "$url"
for tool in wrk perf psql ss python3; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install wrk linux-perf postgresql-client iproute2 python3)" >&2; exit 2; }; done

port="$(echo "${url#http://}" | sed -n 's/.*:\([0-9][0-9]*\).*/\1/p')"
pid="$(ss -ltnpH "sport = :$port" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)"
[ -n "$pid" ] || { echo "no process listens at $url" >&2; exit 2; }
[ -s "/tmp/perf-$pid.map" ] || { echo "the service (pid $pid) writes no /tmp/perf-$pid.map: start it with DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0" >&2; exit 2; }

out="load/results/profile-$read-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bench_mint_tokens "$pg" "$work/tokens.tsv" >/dev/null

echo "==> wrk: $read for ${warmup}s of warm-up, then ${seconds}s sampled"
bench_wrk "$read" "$url" "$((warmup + seconds + 2))" "$connections" "$work/tokens.tsv" "$work/wrk.out" &
load=$!
sleep "$warmup"
perf record -F 499 -g -p "$pid" -o "$out/perf.data" -- sleep "$seconds" 2>"$work/perf.err" \
  || { cat "$work/perf.err" >&2; kill "$load" 2>/dev/null; exit 1; }
wait "$load"

perf script -i "$out/perf.data" 2>/dev/null | python3 load/bench/profile_stacks.py --read "$read" \
  --rate "$(awk '/Requests\/sec/ {print $2}' "$work/wrk.out")" > "$out/profile.md"
cat "$out/profile.md"
echo "==> $out/profile.md"
