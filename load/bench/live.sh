#!/usr/bin/env bash
# Live pull on one instance, measured with the device simulator's live scenario (docs/simulator.md):
#
#   wake    wake latency (push acknowledged -> waiting device holds the change) at --waiters waiting
#           devices (default 1,000: 500 users x 2) and --rate pushes/s (default 50), REST long-poll and
#           gRPC WatchChanges in turn, --rounds rounds of --seconds seconds of pushes
#   memory  the service's memory per waiting device: RSS and managed heap with 10,000 REST long-polls and
#           1,000 WatchChanges streams waiting, against the same service just before (reads only); a
#           normal read (GET /v1/users/{n}, 100/s) runs before, during and after, and its p99 is compared
#   idle    what 1,000 idle waiting devices cost the database: pg_stat_database deltas over --idle-window
#           seconds with none, with 1,000 REST long-polls (wait 60 s), with 1,000 WatchChanges streams
#   pulls   requests and database pulls per device-hour of 1,000 devices on long-poll (wait 60 s) and
#           1,000 on WatchChanges while their users push about once per 10 minutes each, counted over
#           --pull-window seconds and scaled; a 5-minute timer makes 12 per device-hour by definition
#
#   load/bench/live.sh [--only wake,memory,idle,pulls] [--rounds 3] [--seconds 30] [--waiters 1000] [--rate 50]
#                      [--idle-window 60] [--pull-window 180] [--users 20000] [--memory-rest 10000] [--memory-grpc 1000]
#
# Starts a private PostgreSQL (the machine's binaries, loopback, a scratch directory under /tmp,
# default durability), seeds it with the simulator (--users users, seed 20211), starts the service
# (Release build, Production settings) on free loopback ports with Sync__MaxWaiters=20000 (the
# default, set to be explicit: 11,000 waiting devices fit) and Sync__MaxWaitersPerUser=20 (each user
# has 2 waiting devices here); Admission:* keep their defaults (a waiting device holds no admission
# slot, but the first pull of each wait takes one: the simulator brings the devices online at 250 per
# second and bounds those catching up at once to its maxConcurrency, 64). Raises the open
# files limit to the hard limit for itself, the service and the simulator (10,000 connections each
# side). Everything targets loopback and stops by itself: each simulator run is bounded by its profile
# and 15 minutes, the service and PostgreSQL are stopped and removed at the end.
# Results: load/results/live-<time>/ (every run's reports, and summary.md).
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

only="wake,memory,idle,pulls" rounds=3 seconds=30 waiters=1000 rate=50 idle_window=60 pull_window=180 users=20000
memory_rest=10000 memory_grpc=1000
while [ $# -gt 0 ]; do
  case "$1" in
    --only) only="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --waiters) waiters="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --idle-window) idle_window="$2"; shift 2 ;;
    --pull-window) pull_window="$2"; shift 2 ;;
    --users) users="$2"; shift 2 ;;
    --memory-rest) memory_rest="$2"; shift 2 ;;
    --memory-grpc) memory_grpc="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for tool in psql curl python3 ss; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install postgresql-client curl python3 iproute2)" >&2; exit 2; }; done
ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -ge 12000 ] || echo "warning: open files limit $(ulimit -n): the memory run needs about 11,500 per process" >&2

bin=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d /tmp/kobo-live-bench-XXXXXX)
chmod 755 "$work"
pg_port=$(bench_free_port) rest_port=$(bench_free_port) grpc_port=$(bench_free_port)
rest="http://127.0.0.1:$rest_port" grpc="http://127.0.0.1:$grpc_port"
as_pg=()
[ "$(id -u)" -ne 0 ] || { chown postgres "$work"; as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups --); }
service=""
cleanup() {
  local pid
  while read -r pid; do kill "$pid" 2>/dev/null || true; done < <(cat "$work"/*.runner 2>/dev/null)
  [ -z "$service" ] || { kill "$service" 2>/dev/null || true; wait "$service" 2>/dev/null || true; }
  "${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -m fast stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out="load/results/live-$stamp"
mkdir -p "$out"
report="$out/summary.md"
key=bench-signing-key-that-is-at-least-32-bytes
export KOBO_SIM_SIGNING_KEY=$key

echo "==> building the service and the simulator"
dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
dotnet build src/DeviceSimulator -c Release -v q -nologo >/dev/null
sim=(dotnet src/DeviceSimulator/bin/Release/net10.0/Kobo.Sync.DeviceSimulator.dll)

echo "==> PostgreSQL on 127.0.0.1:$pg_port ($work), default durability"
"${as_pg[@]}" "$bin/initdb" -D "$work/data" -U postgres -A trust >/dev/null
"${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/postgres.log" -w \
  -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work -c jit=off -c max_connections=200 -c shared_buffers=256MB" start >/dev/null
pg="host=127.0.0.1 port=$pg_port dbname=kobo_sync user=postgres"
psql "host=127.0.0.1 port=$pg_port dbname=postgres user=postgres" -qX -c "CREATE DATABASE kobo_sync" >/dev/null
npg="Host=127.0.0.1;Port=$pg_port;Database=kobo_sync;Username=postgres"
"${sim[@]}" seed --connection "$npg" --users "$users" --seed 20211 --heaviest-out "$work/heaviest.tsv" >"$work/seed.log" 2>&1

echo "==> the service on $rest (REST) and $grpc (gRPC)"
ASPNETCORE_ENVIRONMENT=Production Auth__SigningKey=$key Paging__CursorKey=bench-cursor-key-that-is-at-least-32-bytes-long \
  Storage__ConnectionString="$npg" Endpoints__Rest=$rest Endpoints__Grpc=$grpc Demo__Seed=false \
  Sync__MaxWaiters=20000 Sync__MaxWaitersPerUser=20 \
  timeout 7200 dotnet src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll >"$work/service.log" 2>&1 &
service=$!
for _ in $(seq 1 60); do
  curl -fsS -o /dev/null "$rest/healthz/ready" 2>/dev/null && break
  kill -0 "$service" 2>/dev/null || { cat "$work/service.log" >&2; exit 2; }
  sleep 1
done
curl -fsS -o /dev/null "$rest/healthz/ready" || { echo "the service did not become ready" >&2; tail -20 "$work/service.log" >&2; exit 2; }
service_process=$(pgrep -P "$service" | head -1) # the service itself, under timeout

# --- helpers --------------------------------------------------------------------------------------

metric() { # NAME: the sum of a /metrics family's samples
  curl -fsS "$rest/metrics" | awk -v n="$1" '$1 == n || index($1, n "{") == 1 { s += $2 } END { printf "%.0f", s }'
}
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
heap() { metric dotnet_gc_last_collection_heap_size_bytes; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# NAME SCENARIOS_JSON [SEED]: writes a profile to $work/NAME.json
profile() {
  cat >"$work/$1.json" <<JSON
{ "name": "$1", "seed": ${3:-1}, "devices": 40000, "maxConcurrency": 64, "spacing": "poisson", "warmUpSyncs": 5,
  "device": { "timeoutMs": 5000, "maxRetries": 3, "baseDelayMs": 200, "maxDelayMs": 2000 },
  "thresholds": { "p99Ms": 200, "failedSyncPercent": 0.1, "wakeP99Ms": 100 },
  "scenarios": [ $2 ] }
JSON
}
live() { # TRANSPORT USERS WAIT RATE SECONDS [REST_STEP_EXTRA]
  printf '{ "read": "live", "transport": "%s", "waitingUsers": %s, "waitersPerUser": 2, "waitSeconds": %s, "pushBatch": 1, "pageSize": 1000, "drainSeconds": 10, "waiterStartsPerSecond": 250, "steps": [ %s ] }' \
    "$1" "$2" "$3" "$4"
}
step() { printf '{ "rate": %s, "durationSeconds": %s }' "$1" "$2"; }

# NAME [ARGS...]: one simulator run of $work/NAME.json into $out/NAME (exit 1, a failed threshold, is reported, not fatal)
run() {
  local name=$1 code=0; shift
  timeout 900 "${sim[@]}" run --profile "$work/$name.json" --rest "$rest" --grpc "$grpc" --users "$users" --out "$out/$name" "$@" \
    >"$out/$name.log" 2>&1 &
  echo $! >"$work/$name.runner" # stopped by the cleanup if the script is
  wait $! || code=$?
  rm -f "$work/$name.runner"
  [ "$code" -le 1 ] || [ "$code" -eq 4 ] || { echo "simulator run $name failed:" >&2; tail -20 "$out/$name.log" >&2; exit 2; }
}
# NAME PYTHON_EXPRESSION: evaluates an expression over r (result.json) and s(name) (a scenario by name)
field() {
  python3 - "$out/$1/result.json" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def s(name): return next(x for x in r["scenarios"] if x["name"] == name)
print(eval(sys.argv[2]))
PY
}

{
  echo "# Live pull on one instance ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GB;" \
    "load average at start $(cut -d' ' -f1-3 /proc/loadavg). PostgreSQL $("$bin/postgres" --version | awk '{print $3}') (default durability)," \
    "$users users seeded; the service, PostgreSQL and the simulator share the cores."
} >"$report"

# --- wake latency --------------------------------------------------------------------------------

if [[ ",$only," == *,wake,* ]]; then
  groups=$((waiters / 2))
  {
    echo
    echo "## Wake latency: $waiters waiting devices ($groups users x 2), $rate pushes/s of 1 highlight for $seconds s"
    echo
    echo "Each push by a third device of a user drawn at random; REST waits 60 s. Wake latency: from the push's answer at the pushing"
    echo "device to the waiting device holding the change, per delivery (0 when the waiting device had it first)."
    echo
    echo "| round | transport | wake p50 ms | wake p99 ms | wake max ms | deliveries | missed | before the ack | push p50 / p99 ms | simulator CPU peak | load avg |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
  } >>"$report"
  declare -A p50s p99s
  for round in $(seq "$rounds"); do
    for transport in rest grpc; do
      name="wake-$transport-$round"
      profile "$name" "$(live "$transport" "$groups" 60 "$(step "$rate" "$seconds")")" "$round"
      run "$name"
      row=$(field "$name" "(lambda w, p: '{:.2f} | {:.2f} | {:.2f} | {:,} | {:,} | {:,} | {:.2f} / {:.2f} | {:.0%}'.format(w['latency']['p50'], w['latency']['p99'], w['latency']['max'], w['syncs'], w['live']['expected'] - w['live']['delivered'], w['live']['beforeAck'], p['latency']['p50'], p['latency']['p99'], r['generator']['cpuPeak']))(s('live-$transport/wake'), s('live-$transport'))")
      echo "| $round | $transport | $row | $(cut -d' ' -f1 /proc/loadavg) |" | tee -a "$report"
      p50s[$transport]+="$(field "$name" "s('live-$transport/wake')['latency']['p50']") "
      p99s[$transport]+="$(field "$name" "s('live-$transport/wake')['latency']['p99']") "
    done
  done
  {
    echo
    for transport in rest grpc; do
      echo "Median of $rounds rounds, $transport: wake p50 $(echo "${p50s[$transport]}" | tr ' ' '\n' | grep . | median) ms," \
        "p99 $(echo "${p99s[$transport]}" | tr ' ' '\n' | grep . | median) ms."
    done
  } | tee -a "$report"
fi

# --- memory per waiting device --------------------------------------------------------------------

if [[ ",$only," == *,memory,* ]]; then
  reads() { printf '{ "read": "user-by-id", "transport": "rest", "steps": [ %s ] }' "$(step 100 "$1")"; }
  {
    echo
    echo "## Memory per waiting device: $memory_rest REST long-polls (wait 60 s) and $memory_grpc WatchChanges streams on one instance"
    echo
    echo "Service RSS (/proc) and managed heap after the last GC (/metrics dotnet_gc_last_collection_heap_size_bytes) just after"
    echo "20 s of reads alone, then 10 s after the last device started waiting; per device = the difference / the service's count of waiting devices."
    echo "The read (GET /v1/users/{n}, REST, 100/s, a new device and user each time) runs alone before, beside the waiting devices, and alone after."
    echo
    echo "| round | waiting (service's count) | RSS before / while waiting MB | RSS per waiting device KB | heap before / while MB | heap per device KB | read p99 before / while / after ms | simulator RSS MB |"
    echo "|---|---|---|---|---|---|---|---|"
  } >>"$report"
  rss_per=() heap_per=()
  for round in $(seq "$rounds"); do
    profile "reads-before-$round" "$(reads 20)" "$round"
    run "reads-before-$round"
    rss0=$(rss_kb "$service_process") heap0=$(heap)
    profile "waiting-$round" "$(live rest $((memory_rest / 2)) 60 "$(step 0.5 60)"), $(live grpc $((memory_grpc / 2)) 60 "$(step 0.5 60)"), $(reads 60)" "$round"
    run "waiting-$round" &
    runner=$!
    for _ in $(seq 1 300); do
      [ "$(metric kobo_sync_live_waiters)" -ge $((memory_rest + memory_grpc)) ] && break
      kill -0 "$runner" 2>/dev/null || break
      sleep 1
    done
    sleep 10
    count=$(metric kobo_sync_live_waiters) rss1=$(rss_kb "$service_process") heap1=$(heap)
    simulator=$(pgrep -f "^dotnet src/DeviceSimulator/.* run --profile $work/waiting-$round.json" | head -1)
    sim_rss=$( [ -n "$simulator" ] && rss_kb "$simulator" || echo 0)
    wait "$runner"
    profile "reads-after-$round" "$(reads 20)" "$round"
    run "reads-after-$round"
    p99() { field "$1" "s('user-by-id-rest')['latency']['p99']"; }
    per_rss=$(awk -v a="$rss0" -v b="$rss1" -v n="$count" 'BEGIN { printf "%.1f", (b - a) / n }')
    per_heap=$(awk -v a="$heap0" -v b="$heap1" -v n="$count" 'BEGIN { printf "%.1f", (b - a) / 1024 / n }')
    rss_per+=("$per_rss") heap_per+=("$per_heap")
    echo "| $round | $count | $((rss0 / 1024)) / $((rss1 / 1024)) | $per_rss | $((heap0 / 1048576)) / $((heap1 / 1048576)) | $per_heap |" \
      "$(p99 "reads-before-$round") / $(p99 "waiting-$round") / $(p99 "reads-after-$round") | $((sim_rss / 1024)) |" | tee -a "$report"
  done
  echo | tee -a "$report"
  echo "Median of $rounds rounds: $(printf '%s\n' "${rss_per[@]}" | median) KB of RSS and $(printf '%s\n' "${heap_per[@]}" | median) KB of managed heap per waiting device." | tee -a "$report"
fi

# --- the database's cost of idle waiting devices ----------------------------------------------------

if [[ ",$only," == *,idle,* ]]; then
  pgstat() {
    psql "$pg" -AtX -F' ' -c "SELECT xact_commit, tup_returned, tup_fetched, numbackends,
      (SELECT count(*) FROM pg_stat_activity WHERE datname = 'kobo_sync' AND state = 'active' AND pid <> pg_backend_pid())
      FROM pg_stat_database WHERE datname = 'kobo_sync'"
  }
  window() { # LABEL: one window's deltas as a table row
    local a b
    a=$(pgstat); sleep "$idle_window"; b=$(pgstat)
    echo "$a $b" | awk -v l="$1" '{ printf "| %s | %d | %d | %d | %d / %d | %d / %d |\n", l, $6 - $1, $7 - $2, $8 - $3, $4, $9, $5, $10 }'
  }
  {
    echo
    echo "## The database's cost of 1,000 idle waiting devices, over $idle_window s"
    echo
    echo "pg_stat_database of the service's database: deltas over the window, and backends at its start / end (all, and those"
    echo "running a statement, the sampling's own left out). No pushes during the windows; each window starts 15 s after the last"
    echo "device started waiting (PostgreSQL flushes an idle backend's statistics within 10 s), so a REST device's re-poll after"
    echo "its 60 s wait falls inside it once. The listener's probe (every 10 s) and the sampling's own query are in every row."
    echo
    echo "| round, waiting devices | xact_commit | tup_returned | tup_fetched | backends | active backends |"
    echo "|---|---|---|---|---|---|"
  } >>"$report"
  for round in $(seq "$rounds"); do
    sleep 15
    window "$round, none" | tee -a "$report"
    for transport in rest grpc; do
      name="idle-$transport-$round"
      profile "$name" "$(live "$transport" 500 60 "$(step 0 $((idle_window + 30))), $(step 1 1)")" "$round"
      sed -i 's/"warmUpSyncs": 5/"warmUpSyncs": 0/; s/"spacing": "poisson"/"spacing": "uniform"/' "$work/$name.json"
      run "$name" &
      runner=$!
      for _ in $(seq 1 120); do
        [ "$(metric kobo_sync_live_waiters)" -ge 1000 ] && break
        sleep 1
      done
      sleep 15
      window "$round, $(metric kobo_sync_live_waiters) $transport" | tee -a "$report"
      wait "$runner"
    done
  done
fi

# --- pulls per device-hour ------------------------------------------------------------------------

if [[ ",$only," == *,pulls,* ]]; then
  per_user=$(awk 'BEGIN { printf "%.4f", 500 / 600 }') # 500 users, each pushing about once per 10 minutes
  profile pulls "$(live rest 500 60 "$(step "$per_user" "$pull_window")"), $(live grpc 500 60 "$(step "$per_user" "$pull_window")")"
  resumed_before=$(metric kobo_sync_live_resumed_total)
  run pulls
  resumed=$(( $(metric kobo_sync_live_resumed_total) - resumed_before ))
  {
    echo
    echo "## Pulls per device-hour: 1,000 devices on long-poll (wait 60 s), 1,000 on WatchChanges, users pushing about once per 10 minutes"
    echo
    echo "Counted by the waiting devices over the run's window (from the first push to the end of the drain) and scaled to an"
    echo "hour: requests (REST long-polls sent, gRPC streams opened) and answers with changes. The service pulls once when a"
    echo "long-poll arrives (unless it resumes a wait that ended with nothing: kobo_sync_live_resumed_total, $resumed over the"
    echo "whole run) and once more when a wake finds changes; a stream pulls once when opened and once per page with changes."
    echo
    echo "| fleet | devices | window s | requests | resumed without a pull | answers with changes | requests per device-hour | database pulls per device-hour (at most) |"
    echo "|---|---|---|---|---|---|---|---|"
    for transport in rest grpc; do
      skipped=$([ "$transport" = rest ] && echo "$resumed" || echo 0)
      field pulls "(lambda l: '| {} | {:,} | {:.0f} | {:,} | {:,} | {:,} | {:.1f} | {:.1f} |'.format('$transport', l['waiters'], l['windowSeconds'], l['requests'], $skipped, l['answersWithChanges'], l['requests'] * 3600 / l['waiters'] / l['windowSeconds'], (l['requests'] - $skipped + l['answersWithChanges']) * 3600 / l['waiters'] / l['windowSeconds']))(s('live-$transport/wake')['live'])"
    done
    echo "| 5-minute timer | any | - | - | - | - | 12.0 | 12.0 (one page each while a device's changes fit in one) |"
    echo
    echo "A stream ends after Sync:WatchMaxSeconds (900 s by default) and is opened again: 4 opens per device-hour in a steady"
    echo "state, which a window shorter than that does not show."
  } | tee -a "$report"
fi

echo "==> $report"
