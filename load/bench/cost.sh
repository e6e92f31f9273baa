#!/usr/bin/env bash
# CPU cost per request, split by process: the service, PostgreSQL and the load generator, for one
# REST read under wrk and for the same SQL under pgbench, in the same run. On a box where all of
# them share the cores, these costs decide the service/pgbench ratio, and they are steadier than
# the rates themselves.
#
#   load/bench/cost.sh --pg "host=127.0.0.1 port=5433 dbname=kobo_sync user=kobo password=..." \
#       [--url http://127.0.0.1:5080] [--seconds 10] [--rounds 3] [--read user|highlights|live]
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
case "$url" in http://127.*) ;; *) echo "--url must be a loopback address (127.0.0.0/8)" >&2; exit 2 ;; esac
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
users=$(psql "$pg" -Atc "SELECT max(user_no) FROM users")
dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
Auth__SigningKey="${AUTH_SIGNING_KEY:?set AUTH_SIGNING_KEY to the signing key of the service}" \
  dotnet src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll token --users "1-$users" --device bench --hours 4 \
  | grep -P '^\d+\t' >"$work/tokens.tsv"

per_request() { awk -v t="$tick" -v n="$2" -v d="$1" 'BEGIN {printf "%.1f", d / t * 1e6 / n}'; }
client_us() { awk -v n="$2" '{printf "%.1f", ($1 + $2) * 1e6 / n}' "$1"; }

measure_service() {
  local s0 p0 n
  s0=$(own_ticks "$service_pid"); p0=$(pg_ticks)
  if [ "$read" = live ]; then
    /usr/bin/time -f "%U %S" -o "$work/client.time" \
      wrk -t2 -c"$connections" -d"${1}s" "$url/healthz/live" >"$work/wrk.out" 2>&1
  else
    READ="$read" TOKENS="$work/tokens.tsv" /usr/bin/time -f "%U %S" -o "$work/client.time" \
      wrk -t2 -c"$connections" -d"${1}s" -s load/wrk/device-reads.lua "$url" >"$work/wrk.out" 2>&1
  fi
  n=$(awk '/requests in/ {print $1}' "$work/wrk.out")
  grep -q "Non-2xx" "$work/wrk.out" && { echo "wrk saw non-2xx answers" >&2; grep -A1 "Non-2xx" "$work/wrk.out" >&2; }
  echo "$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$work/wrk.out") $(per_request $(( $(own_ticks "$service_pid") - s0 )) "$n") $(per_request $(( $(pg_ticks) - p0 )) "$n") $(client_us "$work/client.time" "$n")"
}

measure_pgbench() {
  local p0 n
  p0=$(pg_ticks)
  /usr/bin/time -f "%U %S" -o "$work/client.time" \
    pgbench -n -M prepared -c "$connections" -j 2 -T "$seconds" -D users="$users" -f "load/pgbench/$read.sql" "$pg" >"$work/pgbench.out" 2>&1
  sleep 1 # pgbench's server processes have exited; let the postmaster reap them so their time counts
  n=$(awk '/number of transactions actually processed/ {split($6, a, "/"); print a[1]}' "$work/pgbench.out")
  echo "$(awk '/^tps/ {printf "%.0f", $3}' "$work/pgbench.out") $(per_request $(( $(pg_ticks) - p0 )) "$n") $(client_us "$work/client.time" "$n")"
}

echo "==> warm-up ($seconds s, unrecorded)" >&2
measure_service "$seconds" >/dev/null
echo "Machine: $(nproc) cores, $(uname -m); $connections connections; read: $read; CPU in microseconds per request"
echo
echo "| round | service req/s | service | PostgreSQL | wrk | pgbench tps | PostgreSQL | pgbench |"
echo "|---|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  read -r rps svc pgs wrk_us <<<"$(measure_service "$seconds")"
  tps=- pgp=- bench_us=-
  [ "$read" = live ] || read -r tps pgp bench_us <<<"$(measure_pgbench)"
  echo "| $round | $rps | $svc | $pgs | $wrk_us | $tps | $pgp | $bench_us |"
done
