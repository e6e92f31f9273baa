#!/usr/bin/env bash
# Measures a failover of the local cluster (cluster.sh up first) the way a device sees it.
#
#   failover-check.sh [--node] [--seconds 30] [--service URL --token TOKEN --user N]
#
# A writer inserts one row every 100 ms through the multi-host read-write string (as the service
# does, libpq's own failover); after 5 s the leader is killed (`cluster.sh kill-leader`, with
# --node the whole node). With --service, a device-like client also reads GET /v1/users/N from a
# running service every 100 ms. At the end it prints the write gap (longest time without an
# acknowledged write), the failed writes, the reads that failed and their slowest answers, checks
# that every acknowledged write is on the new leader, and waits for the old leader to rejoin.
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
HERE="$(cd "$(dirname "$0")" && pwd)"
DIR="${KOBO_CLUSTER_DIR:-/tmp/kobo-sync-cluster}"
PG_PORT="${KOBO_CLUSTER_PG_PORT:-15432}"
SECONDS_TOTAL=30 NODE_KILL="" SERVICE="" TOKEN="" USER_NO=""
while [ $# -gt 0 ]; do
  case "$1" in
    --node) NODE_KILL=--node ;;
    --seconds) SECONDS_TOTAL="$2"; shift ;;
    --service) SERVICE="$2"; shift ;;
    --token) TOKEN="$2"; shift ;;
    --user) USER_NO="$2"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done

work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
now_ms() { date +%s%3N; }
hosts="127.0.0.1,127.0.0.1,127.0.0.1"
ports="$PG_PORT,$((PG_PORT + 1)),$((PG_PORT + 2))"
export PGPASSWORD
PGPASSWORD="$(cat "$DIR/secrets/app")"
rw="host=$hosts port=$ports dbname=kobo_sync user=kobo target_session_attrs=read-write connect_timeout=2"

psql -X -q -d "$rw" -c "SET client_min_messages = warning; CREATE TABLE IF NOT EXISTS failover_probe (run text, id int, at timestamptz DEFAULT now(), PRIMARY KEY (run, id))"
run="run-$(now_ms)"

writer() {
  local i=0 start
  while true; do
    i=$((i + 1)); start=$(now_ms)
    if timeout 5 psql -X -q -d "$rw" -c "INSERT INTO failover_probe (run, id) VALUES ('$run', $i)" >/dev/null 2>&1; then
      echo "$start $(now_ms) $i ok"
    else
      echo "$start $(now_ms) $i fail"
    fi
    sleep 0.1
  done
}

reader() {
  while true; do
    local start; start=$(now_ms)
    code="$(curl -s -o /dev/null -m 5 -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$SERVICE/v1/users/$USER_NO" || echo 000)"
    echo "$start $(now_ms) $code"
    sleep 0.1
  done
}

writer >"$work/writes" &
[ -n "$SERVICE" ] && reader >"$work/reads" &
sleep 5
killed_at=$(now_ms)
leader="$("$HERE/cluster.sh" kill-leader $NODE_KILL 2>/dev/null | tail -n1)"
echo "killed $leader ${NODE_KILL:-(postmaster)} at +5 s"
sleep $((SECONDS_TOTAL - 5))
# shellcheck disable=SC2046 # a word per background job's pid
kill $(jobs -p) 2>/dev/null || true
wait 2>/dev/null || true

acked="$(awk '$4 == "ok" { printf "%s%s", sep, $3; sep="," }' "$work/writes")"
stored="$(psql -X -tA -d "$rw" -c "SELECT count(*) FROM failover_probe WHERE run = '$run' AND id IN ($acked)")"

/usr/bin/python3 - "$work/writes" "$work/reads" "$killed_at" "$stored" <<'PY'
import sys, os
writes_file, reads_file, killed, stored = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
writes = [l.split() for l in open(writes_file)]
ok = [(int(s), int(e)) for s, e, _, r in writes if r == "ok"]
failed = [(int(s), int(e)) for s, e, _, r in writes if r == "fail"]
# The write gap: the longest time between two consecutive acknowledgements (normally ~0.1-0.3 s).
ends = sorted(e for s, e in ok)
gap = max((b - a for a, b in zip(ends, ends[1:])), default=0) / 1000
print(f"writes: {len(ok)} acknowledged, {len(failed)} failed; longest time without an acknowledged write {gap:.1f} s")
print(f"acknowledged writes present after failover: {stored}/{len(ok)}")
if os.path.exists(reads_file) and os.path.getsize(reads_file):
    reads = [l.split() for l in open(reads_file)]
    lat = sorted(int(e) - int(s) for s, e, c in reads)
    bad = [c for s, e, c in reads if c != "200" and c != "404"]
    p99 = lat[int(len(lat) * 0.99) - 1] if lat else 0
    print(f"device reads: {len(reads)}, failed {len(bad)} ({', '.join(sorted(set(bad))) or 'none'}); p99 {p99} ms, max {lat[-1] if lat else 0} ms")
PY

start=$SECONDS
if [ -z "$NODE_KILL" ]; then
  "$HERE/cluster.sh" wait 60 >/dev/null 2>&1 && echo "the old leader rejoined as a replica $((SECONDS - start)) s after the run ended"
else
  echo "restart it with: $HERE/cluster.sh restart $leader"
fi
"$HERE/cluster.sh" status || true
