#!/usr/bin/env bash
# CPU cost per request, split by process: the service, PostgreSQL and the load generator, for one
# REST read under wrk and for the same SQL under pgbench, in the same run. On a box where all of
# them share the cores, these costs decide the service/pgbench ratio, and they are steadier than
# the rates themselves.
#
#   load/bench/cost.sh --pg "host=127.0.0.1 port=5433 dbname=kobo_sync user=kobo password=..." \
#       [--url http://127.0.0.1:5080] [--seconds 10] [--rounds 3] [--read user|highlights|live]
#
# With the service's telemetry on (the default), managed bytes allocated per request are read from
# its /metrics (dotnet_gc_heap_total_allocated_bytes_total): unlike CPU time, they hardly move
# between rounds, so they show a change in the request path's work even on a noisy box.
#
# --read live measures the framework's floor instead: GET /healthz/live (no token, no database),
# with no pgbench beside it.
#
# The service must be running against that database with the signing key in $AUTH_SIGNING_KEY.
# PostgreSQL's share is the postmaster and every live server process, plus what its exited
# children used (the postmaster's reaped-children time). Targets loopback only; every run is
# bounded by --seconds and stops by itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

url=http://127.0.0.1:5080 pg="" seconds=10 rounds=3 read=user connections=32
while [ $# -gt 0 ]; do
  case "$1" in
    --url) url="$2"; shift 2 ;;
    --pg) pg="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --read) read="$2"; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
[ -n "$pg" ] || { echo "--pg \"host=... port=... dbname=... user=... password=...\" is required" >&2; exit 2; }
bench_require_loopback "$url"
for tool in wrk pgbench psql ss; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install wrk postgresql-client iproute2)" >&2; exit 2; }; done

port_of() { echo "$1" | sed -n 's/.*:\([0-9][0-9]*\).*/\1/p'; }
listener() { ss -ltnpH "sport = :$1" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2; }
service_pid=$(listener "$(port_of "${url#http://}")")
pg_port=$(echo "$pg" | sed -n 's/.*port=\([0-9]*\).*/\1/p')
postmaster=$(listener "${pg_port:-5432}")
[ -n "$service_pid" ] || { echo "no process listens at $url" >&2; exit 2; }
[ -n "$postmaster" ] || { echo "no PostgreSQL listens on port ${pg_port:-5432} (the CPU of its processes must be readable here)" >&2; exit 2; }

tick=$(getconf CLK_TCK)
own_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
pg_ticks() { # postmaster + live children + reaped children
  local total reaped pid
  reaped=$(awk '{print $16 + $17}' "/proc/$postmaster/stat")
  total=$(( $(own_ticks "$postmaster") + reaped ))
  for pid in $(pgrep -P "$postmaster"); do
    total=$(( total + $(own_ticks "$pid" 2>/dev/null || echo 0) ))
  done
  echo "$total"
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
users=$(bench_mint_tokens "$pg" "$work/tokens.tsv")

# Managed bytes the service has allocated so far, or nothing when its /metrics is off.
allocated() { curl -fsS "$url/metrics" 2>/dev/null | awk '/^dotnet_gc_heap_total_allocated_bytes_total/ {printf "%.0f", $2}'; }

per_request() { awk -v t="$tick" -v n="$2" -v d="$1" 'BEGIN {printf "%.1f", d / t * 1e6 / n}'; }
# The load generator's CPU: what the shell's reaped children (wrk, pgbench) used, in ticks.
children_ticks() { awk '{print $16 + $17}' "/proc/$1/stat"; }

measure_service() {
  local s0 p0 c0 a0 a1 n me=$BASHPID
  a0=$(allocated); s0=$(own_ticks "$service_pid"); p0=$(pg_ticks); c0=$(children_ticks "$me")
  if [ "$read" = live ]; then
    wrk -t2 -c"$connections" -d"${1}s" "$url/healthz/live" >"$work/wrk.out" 2>&1
  else
    bench_wrk "$read" "$url" "$1" "$connections" "$work/tokens.tsv" "$work/wrk.out"
  fi
  n=$(awk '/requests in/ {print $1}' "$work/wrk.out")
  a1=$(allocated)
  local bytes=-
  [ -z "$a0" ] || [ -z "$a1" ] || bytes=$(( (a1 - a0) / n ))
  echo "$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/wrk.out") $(per_request $(( $(own_ticks "$service_pid") - s0 )) "$n") $bytes $(per_request $(( $(pg_ticks) - p0 )) "$n") $(per_request $(( $(children_ticks "$me") - c0 )) "$n")"
}

measure_pgbench() {
  local p0 c0 n me=$BASHPID
  p0=$(pg_ticks); c0=$(children_ticks "$me")
  bench_pgbench "$read" "$pg" "$seconds" "$connections" "$users" "$work/pgbench.out"
  sleep 1 # pgbench's server processes have exited; let the postmaster reap them so their time counts
  n=$(awk '/number of transactions actually processed/ {split($6, a, "/"); print a[1]}' "$work/pgbench.out")
  echo "$(awk '/^tps/ {printf "%.0f", $3}' "$work/pgbench.out") $(per_request $(( $(pg_ticks) - p0 )) "$n") $(per_request $(( $(children_ticks "$me") - c0 )) "$n")"
}

echo "==> warm-up ($seconds s, unrecorded)" >&2
measure_service "$seconds" >/dev/null
echo "Machine: $(nproc) cores, $(uname -m); $connections connections; read: $read; CPU in microseconds per request"
echo
echo "| round | service req/s | service | service bytes allocated | PostgreSQL | wrk | pgbench tps | PostgreSQL | pgbench |"
echo "|---|---|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  read -r rps svc bytes pgs wrk_us <<<"$(measure_service "$seconds")"
  tps=- pgp=- bench_us=-
  [ "$read" = live ] || read -r tps pgp bench_us <<<"$(measure_pgbench)"
  echo "| $round | $rps | $svc | $bytes | $pgs | $wrk_us | $tps | $pgp | $bench_us |"
done
