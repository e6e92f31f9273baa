#!/usr/bin/env bash
# Device reads on the standbys, measured on the local 3-node cluster (deploy/local-cluster/cluster.sh):
# what a scheduled sync that finds nothing new (a REST pull with a caught-up token: lib.sh's "sync"
# load under wrk) costs each node, with Storage:DeviceReadsFromStandbys on against off, in the same
# rounds (on, off, on, off, ...). Per sync: CPU of the service, of the primary's PostgreSQL and of the
# two standbys' (each node's postmaster and its server processes, and what its exited children used),
# the primary's transactions (pg_stat_database xact_commit + xact_rollback: read-only ones count too)
# and blocks (hit + read), and the service's standby reads by outcome (kobo_sync_standby_reads_total).
#
#   load/bench/standby-reads.sh [--rounds 3] [--seconds 20] [--connections 16]
#
# Starts the cluster in a scratch directory under /tmp on loopback ports of its own (PostgreSQL 25432-25434,
# Patroni 28008-28010, etcd 22379-22380), then the service (Release build, Production settings) twice on its
# strings: instance "on" (seeds the demo data, 3,000 users) and instance "off", the setting their only
# difference, both with Storage:Instances=2. Everything targets loopback and stops by itself; the cluster
# is stopped and removed at the end. Results: load/results/standby-reads-<time>/ (summary.md, wrk's output).
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

rounds=3 seconds=20 connections=16
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for tool in wrk psql ss curl; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install wrk postgresql-client iproute2 curl)" >&2; exit 2; }; done

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="load/results/standby-reads-$stamp"
mkdir -p "$out"
work=$(mktemp -d)
export KOBO_CLUSTER_DIR="/tmp/kobo-standby-reads-$stamp" KOBO_CLUSTER_PG_PORT=25432 KOBO_CLUSTER_REST_PORT=28008 KOBO_CLUSTER_ETCD_PORT=22379
export AUTH_SIGNING_KEY=bench-signing-key-that-is-at-least-32-bytes
declare -A services=() urls=()
cleanup() {
  for pid in "${services[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  deploy/local-cluster/cluster.sh down --purge >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "==> building the service"
dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
echo "==> the 3-node cluster ($KOBO_CLUSTER_DIR)"
strings=$(deploy/local-cluster/cluster.sh up 2>"$work/cluster.log") || { cat "$work/cluster.log" >&2; exit 2; }
write=$(echo "$strings" | sed -n 's/^Storage__ConnectionString="\(.*\)"$/\1/p')
read_string=$(echo "$strings" | sed -n 's/^Storage__ReadConnectionString="\(.*\)"$/\1/p')
password=$(echo "$write" | sed -n 's/.*Password=\([^;]*\).*/\1/p')

# NAME URL [VAR=VALUE...]: an instance on the cluster's strings, ready.
start_service() {
  local name=$1 url=$2; shift 2
  env ASPNETCORE_ENVIRONMENT=Production Auth__SigningKey=$AUTH_SIGNING_KEY Paging__CursorKey=bench-cursor-key-that-is-at-least-32-bytes-long \
    Storage__ConnectionString="$write" Storage__ReadConnectionString="$read_string" Storage__Instances=2 \
    Endpoints__Rest="$url" Endpoints__Grpc="http://127.0.0.1:$(bench_free_port)" "$@" \
    timeout 3600 dotnet src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll >>"$out/service-$name.log" 2>&1 &
  services[$name]=$!
  urls[$name]=$url
  for _ in $(seq 1 120); do
    curl -fsS -o /dev/null "$url/healthz/ready" 2>/dev/null && return 0
    kill -0 "${services[$name]}" 2>/dev/null || { tail -20 "$out/service-$name.log" >&2; exit 2; }
    sleep 1
  done
  echo "instance $name did not become ready" >&2; tail -20 "$out/service-$name.log" >&2; exit 2
}
echo "==> the service twice: standby reads on, and off"
start_service on "http://127.0.0.1:$(bench_free_port)" Storage__DeviceReadsFromStandbys=true
start_service off "http://127.0.0.1:$(bench_free_port)" Storage__DeviceReadsFromStandbys=false Demo__Seed=false

primary="" standby_ports=()
for port in 25432 25433 25434; do
  if [ "$(psql "host=127.0.0.1 port=$port dbname=kobo_sync user=kobo password=$password" -Atc 'SELECT pg_is_in_recovery()')" = f ]; then
    primary=$port
  else
    standby_ports+=("$port")
  fi
done
pg="host=127.0.0.1 port=$primary dbname=kobo_sync user=kobo password=$password"
users=$(bench_mint_tokens "$pg" "$work/tokens.tsv" src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll)
echo "==> $(bench_sync_tokens "${urls[on]}" "$work/tokens.tsv" "$work/sync-tokens.tsv") of $users devices caught up (a full sync each)"

ticks_of_port() { bench_pg_ticks "$(bench_listener "$1")"; }
primary_work() {
  psql "$pg" -Atc "SELECT xact_commit + xact_rollback, blks_hit + blks_read FROM pg_stat_database WHERE datname = 'kobo_sync'" | tr '|' ' '
}
standby_outcome() { # URL OUTCOME
  curl -fsS "$1/metrics" | awk -v o="outcome=\"$2\"" '/^kobo_sync_standby_reads_total/ && index($0, o) {s += $2} END {printf "%.0f", s}'
}
service_pid() { pgrep -P "${services[$1]}" | head -1; } # the service itself, under timeout

# NAME: one wrk run of the sync load against the instance; prints the row's figures.
measure() {
  local name=$1 url=${urls[$1]} pid s0 s1 p0 p1 q0 q1 x0 x1 b0 b1 n served0 served1 other0 other1 me=$BASHPID
  pid=$(service_pid "$name")
  read -r x0 b0 <<<"$(primary_work)"
  served0=$(standby_outcome "$url" served); other0=$(( $(standby_outcome "$url" behind) + $(standby_outcome "$url" lagging) + $(standby_outcome "$url" unknown_user) ))
  s0=$(bench_own_ticks "$pid"); p0=$(ticks_of_port "$primary")
  q0=$(( $(ticks_of_port "${standby_ports[0]}") + $(ticks_of_port "${standby_ports[1]}") ))
  bench_wrk_mode sync "$url" "$seconds" "$connections" "$work/tokens.tsv" "$out/wrk-$name.out"
  s1=$(bench_own_ticks "$pid"); p1=$(ticks_of_port "$primary")
  q1=$(( $(ticks_of_port "${standby_ports[0]}") + $(ticks_of_port "${standby_ports[1]}") ))
  sleep 2 # the backends report their statistics within a second of going idle, and the positions' write-behind runs
  read -r x1 b1 <<<"$(primary_work)"
  served1=$(standby_outcome "$url" served); other1=$(( $(standby_outcome "$url" behind) + $(standby_outcome "$url" lagging) + $(standby_outcome "$url" unknown_user) ))
  n=$(awk '/requests in/ {print $1}' "$out/wrk-$name.out")
  [ "${n:-0}" -gt 0 ] || { echo "wrk completed no request: $(cat "$out/wrk-$name.out")" >&2; exit 2; }
  echo "$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$out/wrk-$name.out") $(bench_per_request $(( s1 - s0 )) "$n")" \
    "$(bench_per_request $(( p1 - p0 )) "$n") $(bench_per_request $(( q1 - q0 )) "$n")" \
    "$(awk -v d=$(( x1 - x0 )) -v n="$n" 'BEGIN {printf "%.3f", d / n}') $(awk -v d=$(( b1 - b0 )) -v n="$n" 'BEGIN {printf "%.2f", d / n}')" \
    "$(( served1 - served0 )) $(( other1 - other0 )) $(awk '/Non-2xx/ {n = $5} END {print n + 0}' "$out/wrk-$name.out")"
}

echo "==> warm-up ($seconds s each, unrecorded)"
measure on >/dev/null
measure off >/dev/null
{
  echo "Machine: $(nproc) cores, $(uname -m), load average $(cut -d' ' -f1 /proc/loadavg) before the rounds; $connections connections, $seconds s a run; primary on $primary, standbys on ${standby_ports[*]}"
  echo "A scheduled sync that finds nothing new (REST pull, caught-up token), per sync: CPU in microseconds, the primary's transactions and blocks"
  echo
  echo "| round | standby reads | syncs/s | service | primary PostgreSQL | both standbys | primary transactions | primary blocks | served by a standby | read again on the primary | non-2xx |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
} | tee "$out/summary.md"
for round in $(seq 1 "$rounds"); do
  for name in on off; do
    read -r rps svc prim stby xacts blocks served other non2xx <<<"$(measure "$name")"
    echo "| $round | $name | $rps | $svc | $prim | $stby | $xacts | $blocks | $served | $other | $non2xx |" | tee -a "$out/summary.md"
  done
done
echo "==> $out/summary.md"
