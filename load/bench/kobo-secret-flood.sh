#!/usr/bin/env bash
# Real Kobo e-readers during a flood of made-up link secrets. Starts one build of the service (Release,
# production mode, behind "a balancer" on loopback: Proxies:TrustedNetworks=127.0.0.1) on its embedded
# PostgreSQL in a private data directory, makes --links Kobo links that have never been used (so none
# is in any cache), floods /kobo/{made-up}/v1/initialization with wrk (load/wrk/kobo-made-up-secrets.lua:
# each request from another of --addresses forwarded addresses) and, meanwhile, has each real link make
# its first call, spread over the flood. Prints the flood's answers by status and rate, the real links'
# answers and times, the service's CPU per flood request and the bytes it logged per second.
#
#   load/bench/kobo-secret-flood.sh [--dll PATH] [--seconds 20] [--connections 64] [--links 20]
#       [--addresses 20000] [--port 5590]
#
# --dll runs another build (an older commit's src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll) for a
# before/after comparison on the same box. Loopback only; every step is bounded; the service and its
# PostgreSQL are stopped at the end.
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

dll="" seconds=20 connections=64 links=20 addresses=20000 port=5590
while [ $# -gt 0 ]; do
  case "$1" in
    --dll) dll="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --links) links="$2"; shift 2 ;;
    --addresses) addresses="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for tool in psql curl wrk; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install postgresql-client curl wrk)" >&2; exit 2; }; done
[ "$seconds" -ge 8 ] || { echo "--seconds must be at least 8" >&2; exit 2; }

if [ -z "$dll" ]; then
  echo "==> building (Release)"
  dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
  dll=src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll
fi
[ -f "$dll" ] || { echo "no build at $dll" >&2; exit 2; }

work=$(mktemp -d /tmp/kobo-secret-flood.XXXXXX)
chmod 755 "$work"
url="http://127.0.0.1:$port"
pg_port=$((port + 2))
export Proxies__TrustedNetworks__0=127.0.0.1
service_pid=""
stop() {
  if [ -n "$service_pid" ]; then kill -INT "$service_pid" 2>/dev/null || true; wait "$service_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap stop EXIT

bench_start_embedded "$dll" "$work" "$port"
password=$(cat "$work/postgres/kobo-sync.password")
pg="host=127.0.0.1 port=$pg_port dbname=kobo_sync user=kobo password=$password"
psql "$pg" -v ON_ERROR_STOP=1 -qX -c "INSERT INTO users (user_no, name, created_at) SELECT n, 'reader ' || n, now() FROM generate_series(1, $links) n ON CONFLICT DO NOTHING"

echo "==> $links Kobo links, never used"
: > "$work/links"
for n in $(seq 1 "$links"); do
  Storage__ConnectionString="Host=127.0.0.1;Port=$pg_port;Database=kobo_sync;Username=kobo;Password=$password" \
    timeout 120 dotnet "$dll" token --kobo-link --user "$n" --device "bench-phone" | tail -n1 >> "$work/links"
done
grep -c "^$url/kobo/" "$work/links" | grep -qx "$links" || { echo "not every link was made:" >&2; cat "$work/links" >&2; exit 2; }

ticks() { bench_own_ticks "$service_process"; }
hz=$(getconf CLK_TCK)
cpu_before=$(ticks)
log_before=$(stat -c %s "$work/service.log")

echo "==> flood: $connections connections, $seconds s, made-up secrets from $addresses forwarded addresses"
ADDRESSES="$addresses" timeout $((seconds + 30)) wrk -t2 -c"$connections" -d"${seconds}s" --timeout 10s \
  -s load/wrk/kobo-made-up-secrets.lua "$url" > "$work/wrk.txt" 2>&1 &
wrk_pid=$!
sleep 2
gap=$(awk -v s="$seconds" -v n="$links" 'BEGIN { printf "%.3f", (s - 4) / n }')
: > "$work/real"
while read -r endpoint; do
  curl -s -o /dev/null -m 10 -w '%{http_code} %{time_total}\n' "$endpoint/v1/initialization" >> "$work/real" || echo "000 10" >> "$work/real"
  sleep "$gap"
done < "$work/links"
wait "$wrk_pid" || true
cpu_after=$(ticks)
log_after=$(stat -c %s "$work/service.log")

requests=$(awk '/requests in/ { print $1 }' "$work/wrk.txt")
rate=$(awk '/^Requests\/sec/ { print $2 }' "$work/wrk.txt")
echo "--- flood answers by status"
grep '^status' "$work/wrk.txt" | sort -k2 -n || true
awk -v r="$requests" -v rate="$rate" -v c="$cpu_before" -v d="$cpu_after" -v hz="$hz" -v lb="$log_before" -v la="$log_after" -v s="$seconds" 'BEGIN {
  printf "flood: %d requests, %.0f/s; service CPU %.1f us per flood request; log %.0f bytes/s (%.0f bytes per flood request)\n",
    r, rate, (d - c) / hz * 1e6 / (r > 0 ? r : 1), (la - lb) / s, (la - lb) / (r > 0 ? r : 1) }'
echo "--- real links' first calls during the flood (status, seconds)"
sort "$work/real" | awk '{ n[$1]++; t[NR] = $2 } END { for (s in n) printf "status %s: %d\n", s, n[s]; }'
sort -n -k2 "$work/real" | awk '{ t[NR] = $2 } END { printf "time p50 %.1f ms, max %.1f ms\n", t[int((NR + 1) / 2)] * 1000, t[NR] * 1000 }'
