#!/usr/bin/env bash
# CPU cost per request, split by process: the service, PostgreSQL and the load generator, for one
# REST read under wrk and for the same SQL under pgbench, in the same run. On a box where all of
# them share the cores, these costs decide the service/pgbench ratio, and they are steadier than
# the rates themselves.
#
#   load/bench/cost.sh --pg "host=127.0.0.1 port=5433 dbname=kobo_sync user=kobo password=..." \
#       [--url http://127.0.0.1:5080] [--seconds 10] [--rounds 3] [--read user|highlights|book|push|kobo|sync|fresh|live]
#       [--pgbench yes|no]
#
# --read is user by default; --pgbench by default yes for user, highlights and book, no for the others.
#
# With the service's telemetry on (the default), managed bytes allocated per request are read from
# its /metrics (dotnet_gc_heap_total_allocated_bytes_total): unlike CPU time, they hardly move
# between rounds, so they show a change in the request path's work even on a noisy box.
#
# The reads (lib.sh's bench_wrk_mode says each load): user (GET /v1/users/N), highlights (first page
# of a user's highlights), book (first page of a user's highlights in one book, over every user and
# book with highlights), push (POST /v1/users/N/changes of 10 highlight changes, every one applied:
# load/wrk/device-push.lua; also given per change), kobo (the first page of a Kobo library sync, one
# Kobo link per user made through POST /v1/users/N/kobo-links), sync (GET /v1/users/N/changes with each
# user's caught-up sync token: a scheduled sync that finds nothing new), fresh (user by id, every request
# with a token of a device the service has not seen lately: 20 a user) and live (GET /healthz/live: no token,
# no database, the framework's floor). pgbench runs the same SQL beside the first three
# (load/pgbench/<read>.sql); beside push only with --pgbench yes (load/pgbench/push.sql is one
# change per transaction, not ten); kobo, sync, fresh and live have none.
#
# The service must be running against that database with the signing key in $AUTH_SIGNING_KEY.
# PostgreSQL's share is the postmaster and every live server process, plus what its exited
# children used (the postmaster's reaped-children time). Targets loopback only; every run is
# bounded by --seconds and stops by itself.
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

url=http://127.0.0.1:5080 pg="" seconds=10 rounds=3 read=user connections=32 pgbench=""
while [ $# -gt 0 ]; do
  case "$1" in
    --url) url="$2"; shift 2 ;;
    --pg) pg="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --read) read="$2"; shift 2 ;;
    --pgbench) pgbench="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
case "$read" in
  user|highlights|book) pgbench=${pgbench:-yes} ;;
  push) pgbench=${pgbench:-no} ;;
  kobo|sync|fresh|live) pgbench=no ;;
  *) echo "--read must be user, highlights, book, push, kobo, sync, fresh or live" >&2; exit 2 ;;
esac
case "$pgbench" in yes|no) ;; *) echo "--pgbench must be yes or no" >&2; exit 2 ;; esac
[ -n "$pg" ] || { echo "--pg \"host=... port=... dbname=... user=... password=...\" is required" >&2; exit 2; }
bench_require_loopback "$url"
for tool in wrk pgbench psql ss; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install wrk postgresql-client iproute2)" >&2; exit 2; }; done

service_pid=$(bench_listener "$(bench_port_of "${url#http://}")")
pg_port=$(echo "$pg" | sed -n 's/.*port=\([0-9]*\).*/\1/p')
postmaster=$(bench_listener "${pg_port:-5432}")
[ -n "$service_pid" ] || { echo "no process listens at $url" >&2; exit 2; }
[ -n "$postmaster" ] || { echo "no PostgreSQL listens on port ${pg_port:-5432} (the CPU of its processes must be readable here)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
users=$(bench_mint_tokens "$pg" "$work/tokens.tsv")
bench_prepare_mode "$read" "$pg" "$url" "$work"
[ "$read" != push ] || connections=$BENCH_PUSH_CONNECTIONS
[ "$read" != kobo ] || connections=$BENCH_KOBO_CONNECTIONS

measure_service() { bench_measure "$read" "$url" "$service_pid" "$postmaster" "$1" "$connections" "$work"; }

measure_pgbench() {
  local p0 c0 n me=$BASHPID
  p0=$(bench_pg_ticks "$postmaster"); c0=$(bench_children_ticks "$me")
  bench_pgbench "$read" "$pg" "$seconds" "$connections" "$users" "$work/pgbench.out"
  sleep 1 # pgbench's server processes have exited; let the postmaster reap them so their time counts
  n=$(awk '/number of transactions actually processed/ {split($6, a, "/"); print a[1]}' "$work/pgbench.out")
  echo "$(awk '/^tps/ {printf "%.0f", $3}' "$work/pgbench.out") $(bench_per_request $(( $(bench_pg_ticks "$postmaster") - p0 )) "$n") $(bench_per_request $(( $(bench_children_ticks "$me") - c0 )) "$n")"
}

echo "==> warm-up ($seconds s, unrecorded)" >&2
measure_service "$seconds" >/dev/null
echo "Machine: $(nproc) cores, $(uname -m), load average $(cut -d' ' -f1 /proc/loadavg); $connections connections; read: $read; CPU in microseconds per request"
echo
if [ "$read" = push ]; then
  echo "| round | service req/s | service | service bytes allocated | PostgreSQL | wrk | changes applied | service per change | bytes per change | pgbench tps | PostgreSQL | pgbench |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
else
  echo "| round | service req/s | service | service bytes allocated | PostgreSQL | wrk | pgbench tps | PostgreSQL | pgbench |"
  echo "|---|---|---|---|---|---|---|---|---|"
fi
for round in $(seq 1 "$rounds"); do
  read -r rps svc bytes pgs wrk_us n applied non2xx <<<"$(measure_service "$seconds")"
  [ "$non2xx" -eq 0 ] || echo "round $round: $non2xx non-2xx answers (see wrk's output above)" >&2
  tps=- pgp=- bench_us=-
  [ "$pgbench" = no ] || read -r tps pgp bench_us <<<"$(measure_pgbench)"
  if [ "$read" = push ]; then
    # Each request carries BENCH_PUSH_CHANGES changes; the service's own count says how many it applied
    # (requests still in flight when wrk stopped add theirs too, so it can be a little above n x 10).
    [ "$applied" -ge $(( n * BENCH_PUSH_CHANGES )) ] ||
      echo "round $round: $applied changes applied for $n requests of $BENCH_PUSH_CHANGES: some were not accepted" >&2
    per_change_bytes=-
    [ "$bytes" = - ] || per_change_bytes=$(( bytes / BENCH_PUSH_CHANGES ))
    echo "| $round | $rps | $svc | $bytes | $pgs | $wrk_us | $applied | $(awk -v v="$svc" -v c="$BENCH_PUSH_CHANGES" 'BEGIN {printf "%.1f", v / c}') | $per_change_bytes | $tps | $pgp | $bench_us |"
  else
    echo "| $round | $rps | $svc | $bytes | $pgs | $wrk_us | $tps | $pgp | $bench_us |"
  fi
done
