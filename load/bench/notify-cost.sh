#!/usr/bin/env bash
# What live pull's NOTIFY adds to a device push: pgbench runs load/pgbench/push.sql (the push
# transaction's statements) without and with the pg_notify the service sends inside it, alternating
# A B A B, while one listener consumes the channel as a service instance would. NOTIFY takes a
# cluster-wide lock at commit (held through the commit's WAL flush), so the two are compared at
# several client counts on a server with normal durability (fsync and synchronous_commit on).
#
#   load/bench/notify-cost.sh [--rounds 3] [--seconds 10] [--clients "1 8 32"] [--users 10000]
#
# Starts a private PostgreSQL (the machine's binaries, loopback, a scratch directory under /tmp,
# default durability), migrates it with the service's migration files, and removes it at the end.
# Needs pgbench, psql and /usr/bin/python3 with psycopg2 (Debian: postgresql-client, python3-psycopg2).
# Results: load/results/notify-cost-<time>.md (git-ignored).
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."

rounds=3 seconds=10 clients="1 8 32" users=10000
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --clients) clients="$2"; shift 2 ;;
    --users) users="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for tool in pgbench psql; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install postgresql-client)" >&2; exit 2; }; done
/usr/bin/python3 -c 'import psycopg2' 2>/dev/null || { echo "missing psycopg2 (apt-get install python3-psycopg2)" >&2; exit 2; }

bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d /tmp/kobo-notify-cost-XXXXXX)
chmod 755 "$work"
port=$((20000 + RANDOM % 10000))
as_pg=()
[ "$(id -u)" -ne 0 ] || { chown postgres "$work"; as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups --); }
listener=""
cleanup() {
  [ -z "$listener" ] || kill "$listener" 2>/dev/null || true
  "${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "==> PostgreSQL on 127.0.0.1:$port ($work), default durability"
"${as_pg[@]}" "$bin/initdb" -D "$work/data" -U postgres -A trust >/dev/null
"${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/server.log" -w \
  -o "-p $port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work -c jit=off -c max_connections=100" start >/dev/null
pg="host=127.0.0.1 port=$port dbname=postgres user=postgres"
for migration in src/SyncApi/Infrastructure/Storage/Sql/Migrations/*.sql; do
  psql "$pg" -qX -v ON_ERROR_STOP=1 -f "$migration" >/dev/null
done
psql "$pg" -qX -v ON_ERROR_STOP=1 -c "INSERT INTO users (user_no, name, created_at) SELECT n, 'reader', now() FROM generate_series(1, $users) n" >/dev/null

# One consumer of the channel, as each service instance has (a listener that stops reading makes
# the notification queue grow; that is not what is measured here).
/usr/bin/python3 - "$pg" >"$work/listener.log" 2>&1 <<'PY' &
import select, sys, psycopg2
conn = psycopg2.connect(sys.argv[1]); conn.autocommit = True
conn.cursor().execute("LISTEN kobo_sync_changes_v1")
received = 0
while True:
    if select.select([conn], [], [], 5) != ([], [], []):
        conn.poll()
        received += len(conn.notifies); conn.notifies.clear()
PY
listener=$!

mkdir -p load/results
report="load/results/notify-cost-$(date -u +%Y%m%dT%H%M%SZ).md"
run() { # NOTIFY CLIENTS -> tps
  pgbench -n -M prepared -c "$2" -j 2 -T "$seconds" -D users="$users" -D notify="$1" -f load/pgbench/push.sql "$pg" 2>&1 \
    | sed -n 's/^tps = \([0-9.]*\).*/\1/p'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

{
  echo "# NOTIFY in the push transaction ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "pgbench -M prepared, load/pgbench/push.sql, $rounds rounds of $seconds s per cell, A B A B; one listener."
  echo
  echo "| clients | push tps | push + NOTIFY tps | change | per round (push / push + NOTIFY) |"
  echo "|---|---|---|---|---|"
} >"$report"
for c in $clients; do
  without=() with=()
  for _ in $(seq "$rounds"); do
    without+=("$(run 0 "$c")")
    with+=("$(run 1 "$c")")
  done
  a=$(printf '%s\n' "${without[@]}" | median)
  b=$(printf '%s\n' "${with[@]}" | median)
  change=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%+.1f %%", (b - a) * 100 / a }')
  rounds_text=$(paste -d/ <(printf '%.0f\n' "${without[@]}") <(printf '%.0f\n' "${with[@]}") | paste -sd' ')
  echo "| $c | $(printf '%.0f' "$a") | $(printf '%.0f' "$b") | $change | $rounds_text |" | tee -a "$report"
done
echo "==> $report"
