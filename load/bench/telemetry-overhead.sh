#!/usr/bin/env bash
# What telemetry costs: the same REST read under wrk with telemetry on (the default: the Kobo.Sync
# meter, ASP.NET Core, Kestrel, runtime and Npgsql meters, /metrics scraped every second as
# Prometheus would) and off (Telemetry:Enabled=false), alternating on off on off in one run on one
# private database. Starts the service itself on its own ports and data directory and stops it with
# SIGTERM after each round; every wrk run is bounded by --seconds.
#
#   load/bench/telemetry-overhead.sh [--rounds 2] [--seconds 15] [--connections 32] [--read highlights]
#
# Results: load/results/telemetry-<time>.md (git-ignored).
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."

rounds=2 seconds=15 connections=32 read=highlights
rest_port=5180 grpc_port=5181 pg_port=5443
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --read) read="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for tool in wrk curl dotnet; do command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 2; }; done

mkdir -p load/results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
report="load/results/telemetry-$stamp.md"
work=$(mktemp -d /tmp/kobo-telemetry-XXXXXX)
chmod 755 "$work"   # the private PostgreSQL runs as the postgres user when this runs as root
pid=""
scraper=""
cleanup() {
  [ -n "$scraper" ] && kill "$scraper" 2>/dev/null || true
  [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

key="telemetry-overhead-signing-key-0123456789abcdef"
export Auth__SigningKey="$key" Paging__CursorKey="telemetry-overhead-cursor-key-0123456789abcdef"
export Endpoints__Rest="http://127.0.0.1:$rest_port" Endpoints__Grpc="http://127.0.0.1:$grpc_port"
export Storage__Embedded__Enabled=true Storage__Embedded__DataDirectory="$work/postgres" Storage__Embedded__Port="$pg_port"
export ASPNETCORE_ENVIRONMENT=Production
unset OTEL_EXPORTER_OTLP_ENDPOINT

dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
dll=src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll

start_service() { # $1: true|false
  Telemetry__Enabled="$1" dotnet "$dll" >>"$work/service.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do
    curl -fsS "http://127.0.0.1:$rest_port/healthz/ready" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { echo "the service stopped:" >&2; tail -20 "$work/service.log" >&2; exit 1; }
    sleep 0.2
  done
  echo "the service was not ready in 120 s" >&2; exit 1
}
stop_service() { kill -TERM "$pid"; wait "$pid" 2>/dev/null || true; pid=""; }

echo "==> first start: database and demo data"
start_service true
users=$(grep -o '"Users":[0-9]*' "$work/service.log" | head -1 | cut -d: -f2)
stop_service
users=${users:-1000}
dotnet "$dll" token --users "1-$users" --device bench --hours 2 | grep -P '^\d+\t' >"$work/tokens.tsv"

run() { # $1 on|off -> "rps p50ms p99ms"
  local enabled=true; [ "$1" = off ] && enabled=false
  start_service "$enabled"
  if [ "$1" = on ]; then
    ( while true; do curl -fsS "http://127.0.0.1:$rest_port/metrics" >/dev/null 2>&1; sleep 1; done ) &
    scraper=$!
  fi
  # Warm-up (JIT, pool, prepared statements), then the measured run.
  READ="$read" TOKENS="$work/tokens.tsv" wrk -t2 -c"$connections" -d3s -s load/wrk/device-reads.lua "http://127.0.0.1:$rest_port" >/dev/null 2>&1
  READ="$read" TOKENS="$work/tokens.tsv" wrk -t2 -c"$connections" -d"${seconds}s" --latency \
    -s load/wrk/device-reads.lua "http://127.0.0.1:$rest_port" >"$work/wrk.out" 2>&1
  [ -n "$scraper" ] && { kill "$scraper" 2>/dev/null || true; wait "$scraper" 2>/dev/null || true; scraper=""; }
  stop_service
  grep -q "Non-2xx" "$work/wrk.out" && { echo "wrk saw non-2xx answers:" >&2; grep -A1 "Non-2xx" "$work/wrk.out" >&2; }
  awk 'function ms(v) { if (v ~ /us$/) { sub(/us$/,"",v); return v/1000 } if (v ~ /ms$/) { sub(/ms$/,"",v); return v } sub(/s$/,"",v); return v*1000 }
       /^Requests\/sec/ {rps=$2} /^ +50%/ {p50=ms($2)} /^ +99%/ {p99=ms($2)}
       END {printf "%.0f %.2f %.2f\n", rps, p50, p99}' "$work/wrk.out"
}

{
  echo "# Telemetry overhead, $stamp"
  echo
  echo "wrk -t2 -c$connections, ${seconds} s per run after a 3 s warm-up, READ=$read, $users users; $(nproc) cores."
  echo "on = Telemetry:Enabled=true (default, no OTLP), /metrics scraped every second; off = Telemetry:Enabled=false."
  echo
  echo "| round | mode | req/s | p50 ms | p99 ms |"
  echo "|---|---|---|---|---|"
} >"$report"
for round in $(seq 1 "$rounds"); do
  for mode in on off; do
    echo "==> round $round, telemetry $mode"
    read -r rps p50 p99 < <(run "$mode")
    echo "| $round | $mode | $rps | $p50 | $p99 |" >>"$report"
  done
done
cat "$report"
