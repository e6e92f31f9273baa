#!/usr/bin/env bash
# Live pull, measured with the device simulator's live scenario (docs/simulator.md) and wrk:
#
#   wake    wake latency (push acknowledged -> waiting device holds the change) at --waiters waiting
#           devices (default 1,000: 500 users x 2) and --rate pushes/s (default 50), REST long-poll and
#           gRPC WatchChanges in turn, --rounds rounds of --seconds seconds of pushes. The pushes go to
#           instance A; the devices wait on instance B (--wake-on other, the default: simulator
#           --wait-rest/--wait-grpc), so each wake crosses instances through PostgreSQL (A's NOTIFY after
#           its commit, B's listener); B's kobo_sync_live_notification_lag_seconds per run (p50/p99 from
#           its buckets, mean from _sum/_count). --wake-on same: the devices wait on A (an in-memory wake)
#   memory  the service's memory per waiting device: RSS and managed heap with 10,000 REST long-polls and
#           1,000 WatchChanges streams waiting, against the same service just before (reads only); a
#           normal read (GET /v1/users/{n}, 100/s) runs before, during and after, and its p99 is compared
#   idle    what 1,000 idle waiting devices cost the database: pg_stat_database deltas over --idle-window
#           seconds with none, with 1,000 REST long-polls (wait 60 s), with 1,000 WatchChanges streams
#   pulls   requests and database pulls per device-hour of 1,000 devices on long-poll (wait 60 s) and
#           1,000 on WatchChanges while their users push about once per 10 minutes each, counted over
#           --pull-window seconds and scaled; a 5-minute timer makes 12 per device-hour by definition
#   pushes  the service's push rate with live pull on against off, side by side: --rounds rounds, each
#           with A and B restarted with Sync__LivePull=true, then false; each time wrk pushes
#           (load/wrk/device-push.lua, 10 changes a push, every one applied) to A over --push-connections
#           connections (default 32) for --seconds seconds, and while live pull is on --push-waiters
#           devices (default 1,000: 500 users x 2 REST long-polls, wait 60 s) wait on B. Per run: pushes/s
#           (applied changes / 10), the database's commits/s (pg_stat_database) and write transactions/s,
#           pg_notify calls (pg_stat_statements); the medians and the ratio on/off (the goal: at least 0.9)
#
#   load/bench/live.sh [--only wake,memory,idle,pulls,pushes] [--rounds 3] [--seconds 30] [--waiters 1000] [--rate 50]
#                      [--wake-on other|same] [--push-connections 32] [--push-waiters 1000]
#                      [--idle-window 60] [--pull-window 180] [--users 20000] [--memory-rest 10000] [--memory-grpc 1000]
#
# Starts a private PostgreSQL (the machine's binaries, loopback, a scratch directory under /tmp,
# default durability: fsync and synchronous_commit on; pg_stat_statements loaded), seeds it with the
# simulator (--users users, seed 20211), starts the service (instance A: Release build, Production
# settings) on free loopback ports with Sync__MaxWaiters=20000 (the default, set to be explicit: 11,000
# waiting devices fit) and Sync__MaxWaitersPerUser=20 (each user has 2 waiting devices here); instance
# B, the same on ports of its own and the same database, for wake (unless --wake-on same) and pushes;
# both with Storage__Instances=2 (they share the server's connections; memory, idle and pulls run on A alone).
# Admission:* keep their defaults (a waiting device holds no admission slot, but the first pull of each
# wait takes one: the simulator brings the devices online at 250 per second and bounds those catching up
# at once to its maxConcurrency, 64). Raises the open files limit to the hard limit for itself, the
# service and the simulator (10,000 connections each side). Everything targets loopback and stops by
# itself: each simulator run is bounded by its profile and 15 minutes, the services and PostgreSQL are
# stopped and removed at the end. The parts run in the order above, whatever the order of --only.
# Results: load/results/live-<time>/ (every run's reports, and summary.md).
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

only="wake,memory,idle,pulls,pushes" rounds=3 seconds=30 waiters=1000 rate=50 idle_window=60 pull_window=180 users=20000
memory_rest=10000 memory_grpc=1000 wake_on=other push_connections=32 push_waiters=1000
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
    --wake-on) wake_on="$2"; shift 2 ;;
    --push-connections) push_connections="$2"; shift 2 ;;
    --push-waiters) push_waiters="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
case "$wake_on" in same|other) ;; *) echo "--wake-on must be same or other, not $wake_on" >&2; usage >&2; exit 2 ;; esac
for part in ${only//,/ }; do
  case "$part" in wake|memory|idle|pulls|pushes) ;; *) echo "--only: no part $part" >&2; usage >&2; exit 2 ;; esac
done
[ $((push_waiters % 2)) -eq 0 ] || { echo "--push-waiters must be even (users x 2)" >&2; exit 2; }
for tool in psql curl python3 ss; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install postgresql-client curl python3 iproute2)" >&2; exit 2; }; done
[[ ",$only," != *,pushes,* ]] || command -v wrk >/dev/null || { echo "missing wrk (apt-get install wrk)" >&2; exit 2; }
ulimit -n "$(ulimit -Hn)"
[ "$(ulimit -n)" -ge 12000 ] || echo "warning: open files limit $(ulimit -n): the memory run needs about 11,500 per process" >&2

bin=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)
work=$(mktemp -d /tmp/kobo-live-bench-XXXXXX)
chmod 755 "$work"
pg_port=$(bench_free_port) rest_port=$(bench_free_port) grpc_port=$(bench_free_port)
rest="http://127.0.0.1:$rest_port" grpc="http://127.0.0.1:$grpc_port"
b_rest="http://127.0.0.1:$(bench_free_port)" b_grpc="http://127.0.0.1:$(bench_free_port)"
as_pg=()
[ "$(id -u)" -ne 0 ] || { chown postgres "$work"; as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups --); }
declare -A services=() # instance (a, b) -> its timeout wrapper's pid
cleanup() {
  local pid
  while read -r pid; do kill "$pid" 2>/dev/null || true; done < <(cat "$work"/*.runner 2>/dev/null)
  for pid in "${services[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
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

echo "==> PostgreSQL on 127.0.0.1:$pg_port ($work), default durability, pg_stat_statements loaded"
"${as_pg[@]}" "$bin/initdb" -D "$work/data" -U postgres -A trust >/dev/null
"${as_pg[@]}" "$bin/pg_ctl" -D "$work/data" -l "$work/postgres.log" -w \
  -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$work -c jit=off -c max_connections=200 -c shared_buffers=256MB -c shared_preload_libraries=pg_stat_statements" start >/dev/null
pg="host=127.0.0.1 port=$pg_port dbname=kobo_sync user=postgres"
psql "host=127.0.0.1 port=$pg_port dbname=postgres user=postgres" -qX -c "CREATE DATABASE kobo_sync" >/dev/null
npg="Host=127.0.0.1;Port=$pg_port;Database=kobo_sync;Username=postgres"
"${sim[@]}" seed --connection "$npg" --users "$users" --seed 20211 --heaviest-out "$work/heaviest.tsv" >"$work/seed.log" 2>&1

# INSTANCE REST GRPC [VAR=VALUE...]: starts an instance of the service (a or b; Release build, Production
# settings, this run's database, two instances sharing the server's connections) with the extra settings,
# and waits until it is ready. Its log: $work/service-INSTANCE.log (each start appended).
start_service() {
  local name=$1 url=$2 grpc_url=$3 pid; shift 3
  env ASPNETCORE_ENVIRONMENT=Production Auth__SigningKey=$key Paging__CursorKey=bench-cursor-key-that-is-at-least-32-bytes-long \
    Storage__ConnectionString="$npg" Storage__Instances=2 Endpoints__Rest="$url" Endpoints__Grpc="$grpc_url" Demo__Seed=false \
    Sync__MaxWaiters=20000 Sync__MaxWaitersPerUser=20 "$@" \
    timeout 7200 dotnet src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll >>"$work/service-$name.log" 2>&1 &
  pid=$!
  services[$name]=$pid
  for _ in $(seq 1 60); do
    curl -fsS -o /dev/null "$url/healthz/ready" 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { cat "$work/service-$name.log" >&2; exit 2; }
    sleep 1
  done
  curl -fsS -o /dev/null "$url/healthz/ready" || { echo "instance $name did not become ready" >&2; tail -20 "$work/service-$name.log" >&2; exit 2; }
  [ "$name" != a ] || service_process=$(pgrep -P "$pid" | head -1) # the service itself, under timeout
}
stop_service() { # INSTANCE
  local pid=${services[$1]:-}
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  unset "services[$1]"
}

echo "==> the service (instance A) on $rest (REST) and $grpc (gRPC)"
start_service a "$rest" "$grpc"

# --- helpers --------------------------------------------------------------------------------------

metric() { # NAME [URL]: the sum of a /metrics family's samples (of instance A unless URL)
  curl -fsS "${2:-$rest}/metrics" | awk -v n="$1" '$1 == n || index($1, n "{") == 1 { s += $2 } END { printf "%.0f", s }'
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

# URL: a /metrics scrape's notification lag histogram: "le count" lines (cumulative; +Inf as inf), then "sum S" and "count N".
lag_histogram() {
  curl -fsS "$1/metrics" | awk '
    index($1, "kobo_sync_live_notification_lag_seconds_bucket{") == 1 { match($1, /le="[^"]*"/); le = substr($1, RSTART + 4, RLENGTH - 5); b[le] += $2 }
    $1 == "kobo_sync_live_notification_lag_seconds_sum" || index($1, "kobo_sync_live_notification_lag_seconds_sum{") == 1 { s += $2 }
    $1 == "kobo_sync_live_notification_lag_seconds_count" || index($1, "kobo_sync_live_notification_lag_seconds_count{") == 1 { n += $2 }
    END { for (le in b) print (le == "+Inf" ? "inf" : le), b[le]; printf "sum %.9f\ncount %d\n", s, n }'
}
# BEFORE AFTER: from two lag_histogram files, "count p50-ms p99-ms mean-ms" of the notifications in between
# (percentiles interpolated inside their bucket, as Prometheus's histogram_quantile; "-" with none).
lag_between() {
  python3 - "$1" "$2" <<'PY'
import sys
def read(path):
    buckets, total, count = {}, 0.0, 0
    for line in open(path):
        key, value = line.split()
        if key == "sum": total = float(value)
        elif key == "count": count = int(float(value))
        else: buckets[float(key)] = float(value)
    return buckets, total, count
b0, s0, n0 = read(sys.argv[1])
b1, s1, n1 = read(sys.argv[2])
n = n1 - n0
if n <= 0:
    print("0 - - -"); sys.exit()
bounds = sorted(b1)
cumulative = [b1[le] - b0.get(le, 0) for le in bounds]
def quantile(q):
    rank, lower, below = q * cumulative[-1], 0.0, 0.0
    for le, c in zip(bounds, cumulative):
        if c >= rank:
            if le == float("inf"): return lower * 1000
            return (lower + (le - lower) * ((rank - below) / (c - below) if c > below else 1)) * 1000
        lower, below = le, c
    return lower * 1000
print(f"{n} {quantile(0.5):.2f} {quantile(0.99):.2f} {(s1 - s0) / n * 1000:.2f}")
PY
}

{
  echo "# Live pull ($(date -u +%Y-%m-%dT%H:%MZ))"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GB;" \
    "load average at start $(cut -d' ' -f1-3 /proc/loadavg). PostgreSQL $("$bin/postgres" --version | awk '{print $3}') (default durability)," \
    "$users users seeded; the service's instances, PostgreSQL and the load generators share the cores."
} >"$report"

# --- wake latency --------------------------------------------------------------------------------

if [[ ",$only," == *,wake,* ]]; then
  groups=$((waiters / 2))
  wait_args=() where="on instance A, the one they push to (a wake in memory, no database)"
  if [ "$wake_on" = other ]; then
    echo "==> instance B on $b_rest (REST) and $b_grpc (gRPC), the waiting devices' instance"
    start_service b "$b_rest" "$b_grpc"
    wait_args=(--wait-rest "$b_rest" --wait-grpc "$b_grpc")
    where="on instance B, the pushes to instance A on the same database: each wake crosses instances (A's NOTIFY after its commit, B's listener)"
  fi
  {
    echo
    echo "## Wake latency: $waiters waiting devices ($groups users x 2), $rate pushes/s of 1 highlight for $seconds s"
    echo
    echo "Each push by a third device of a user drawn at random; REST waits 60 s. The devices wait $where."
    echo "Wake latency: from the push's answer at the pushing device to the waiting device holding the change, per delivery (0 when"
    echo "the waiting device had it first). Notification lag (instance B's kobo_sync_live_notification_lag_seconds over the run, only"
    echo "notifications from another instance): from the first commit a notification carries, on A's clock, to its arrival at B's"
    echo "listener, A's coalescing (Sync:LiveSignalCoalesceMs) included; p50/p99 interpolated in its buckets, mean from _sum/_count."
    echo
    echo "| round | transport | wake p50 ms | wake p99 ms | wake max ms | deliveries | missed | before the ack | push p50 / p99 ms | simulator CPU peak | notifications at B | lag p50 / p99 / mean ms | load avg |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
  } >>"$report"
  declare -A p50s p99s
  for round in $(seq "$rounds"); do
    for transport in rest grpc; do
      name="wake-$transport-$round"
      profile "$name" "$(live "$transport" "$groups" 60 "$(step "$rate" "$seconds")")" "$round"
      lag="- | - / - / -"
      [ "$wake_on" != other ] || lag_histogram "$b_rest" >"$work/lag-before"
      run "$name" "${wait_args[@]}"
      if [ "$wake_on" = other ]; then
        lag_histogram "$b_rest" >"$work/lag-after"
        lag=$(lag_between "$work/lag-before" "$work/lag-after" | awk '{ printf "%s | %s / %s / %s", $1, $2, $3, $4 }')
      fi
      row=$(field "$name" "(lambda w, p: '{:.2f} | {:.2f} | {:.2f} | {:,} | {:,} | {:,} | {:.2f} / {:.2f} | {:.0%}'.format(w['latency']['p50'], w['latency']['p99'], w['latency']['max'], w['syncs'], w['live']['expected'] - w['live']['delivered'], w['live']['beforeAck'], p['latency']['p50'], p['latency']['p99'], r['generator']['cpuPeak']))(s('live-$transport/wake'), s('live-$transport'))")
      echo "| $round | $transport | $row | $lag | $(cut -d' ' -f1 /proc/loadavg) |" | tee -a "$report"
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
  stop_service b # the next parts measure instance A alone
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

# --- pushes with live pull on and off ---------------------------------------------------------------

if [[ ",$only," == *,pushes,* ]]; then
  BENCH_PUSH_CONNECTIONS=$push_connections # the push load's connections (lib.sh)
  mkdir -p "$work/push"
  echo "==> device tokens and the push load's highlights (instance A)"
  AUTH_SIGNING_KEY=$key bench_mint_tokens "$pg" "$work/push/tokens.tsv" src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll >/dev/null
  # Every user's 10 highlights of the push load created first (so that every measured push updates them), over
  # as many 20 s passes as this box needs (bench_prepare_mode's own priming stops after three), then checked.
  for _ in $(seq 1 15); do
    [ "$(psql "$pg" -Atc "SELECT count(*) FROM highlights WHERE book_no = $BENCH_PUSH_BOOK AND id LIKE '%/watch_'")" \
      -lt $(( $(wc -l <"$work/push/tokens.tsv") * BENCH_PUSH_CHANGES )) ] || break
    bench_wrk_mode push "$rest" 20 "$push_connections" "$work/push/tokens.tsv" "$work/push/prime.out"
  done
  bench_prepare_mode push "$pg" "$rest" "$work/push"
  psql "$pg" -qX -c "CREATE EXTENSION IF NOT EXISTS pg_stat_statements" >/dev/null
  # "xact_commit write-transactions pg_notify-calls" so far: the service's database's commits (pg_stat_database; a
  # backend reports them up to a second late while busy, within 10 s once idle), the server's write transactions
  # (exact: the next transaction id) and the pg_notify calls of this database (pg_stat_statements).
  pushdb() {
    psql "$pg" -AtX -F' ' -c "SELECT (SELECT xact_commit FROM pg_stat_database WHERE datname = 'kobo_sync'),
      pg_snapshot_xmax(pg_current_snapshot()),
      (SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
        WHERE query ILIKE '%pg_notify%' AND dbid = (SELECT oid FROM pg_database WHERE datname = 'kobo_sync'))"
  }
  wrk_ms() { # LABEL WRK_OUT: a latency percentile of wrk's --latency table in ms
    awk -v l="$1" '$1 == l { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
      printf "%.1f", v * (u == "us" ? 0.001 : u == "s" ? 1000 : u == "m" ? 60000 : 1) }' "$2"
  }
  push_groups=$((push_waiters / 2))
  {
    echo
    echo "## Pushes with live pull on and off: wrk over $push_connections connections to instance A, $seconds s a run"
    echo
    echo "Each round restarts instances A and B with Sync__LivePull=true, then false, and runs the same push load"
    echo "(load/wrk/device-push.lua: every user of the data set in passes, 10 changes a push, every one applied). While live pull"
    echo "is on, $push_waiters devices ($push_groups users x 2, REST long-polls, wait 60 s) wait on B; those of the pushed users are"
    echo "woken, through PostgreSQL, and wait again (a re-wait B refuses while busy comes back after its Retry-After)."
    echo "Pushes/s: changes A applied (its /metrics) / 10 / wrk's duration. Over the run and the 11 s after it (every backend has"
    echo "reported its statistics by then), per second of the run: commits/s, the service's database's xact_commit (pg_stat_database;"
    echo "read-only transactions too, such as the woken devices' pulls); write transactions/s, the server's, exact (transaction ids);"
    echo "pg_notify calls (pg_stat_statements), and per second. Waiting on B: its kobo_sync_live_waiters before / after the load."
    echo
    echo "| round | live pull | pushes/s | wrk requests/s | non-2xx | push p50 / p99 ms | commits/s | write transactions/s | pg_notify calls (per s) | waiting on B before / after | load avg |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
  } >>"$report"
  declare -A rates=([true]="" [false]="")
  for round in $(seq "$rounds"); do
    for live_pull in true false; do
      stop_service a; stop_service b
      start_service a "$rest" "$grpc" Sync__LivePull=$live_pull
      start_service b "$b_rest" "$b_grpc" Sync__LivePull=$live_pull
      runner=""
      if [ "$live_pull" = true ] && [ "$push_waiters" -gt 0 ]; then
        # Waiting devices for the whole run: no push of their own until after it (rate 0, then 1/s for 1 s).
        name="pushes-waiting-$round"
        profile "$name" "$(live rest "$push_groups" 60 "$(step 0 $((seconds + 30))), $(step 1 1)")" "$round"
        sed -i 's/"warmUpSyncs": 5/"warmUpSyncs": 0/; s/"spacing": "poisson"/"spacing": "uniform"/' "$work/$name.json"
        run "$name" --wait-rest "$b_rest" --wait-grpc "$b_grpc" &
        runner=$!
        for _ in $(seq 1 120); do
          [ "$(metric kobo_sync_live_waiters "$b_rest")" -ge "$push_waiters" ] && break
          kill -0 "$runner" 2>/dev/null || break
          sleep 1
        done
      fi
      sleep 11 # every backend's statistics reported
      waiting=$( [ "$live_pull" = true ] && metric kobo_sync_live_waiters "$b_rest" || echo 0)
      before=$(pushdb) applied0=$(bench_push_applied "$rest")
      bench_wrk_mode push "$rest" "$seconds" "$push_connections" "$work/push/tokens.tsv" "$work/push/wrk-$live_pull-$round.out"
      applied1=$(bench_push_applied "$rest")
      waiting+=" / $( [ "$live_pull" = true ] && metric kobo_sync_live_waiters "$b_rest" || echo 0)"
      cp "$work/push/wrk-$live_pull-$round.out" "$out/wrk-pushes-$live_pull-$round.out"
      sleep 11
      after=$(pushdb)
      [ -z "$runner" ] || wait "$runner"
      wrk_out="$work/push/wrk-$live_pull-$round.out"
      duration=$(awk '/requests in/ { d = $4; sub(/,$/, "", d); u = d; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", d); print d * (u == "m" ? 60 : u == "ms" ? 0.001 : 1) }' "$wrk_out")
      rate_now=$(awk -v a="$applied0" -v b="$applied1" -v c="$BENCH_PUSH_CHANGES" -v d="$duration" 'BEGIN { printf "%.0f", (b - a) / c / d }')
      rates[$live_pull]+="$rate_now "
      row=$(echo "$before $after" | awk -v d="$duration" '{ printf "%.0f | %.0f | %d (%.1f)", ($4 - $1) / d, ($5 - $2) / d, $6 - $3, ($6 - $3) / d }')
      echo "| $round | $([ "$live_pull" = true ] && echo on || echo off) | $rate_now | $(awk '/Requests\/sec/ {printf "%.0f", $2}' "$wrk_out") |" \
        "$(awk '/Non-2xx/ {n = $5} END {print n + 0}' "$wrk_out") | $(wrk_ms 50% "$wrk_out") / $(wrk_ms 99% "$wrk_out") | $row | $waiting |" \
        "$(cut -d' ' -f1 /proc/loadavg) |" | tee -a "$report"
    done
  done
  on=$(echo "${rates[true]}" | tr ' ' '\n' | grep . | median) off=$(echo "${rates[false]}" | tr ' ' '\n' | grep . | median)
  {
    echo
    echo "Median of $rounds rounds: $on pushes/s with live pull on, $off with it off; on/off $(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.2f", a / b }')" \
      "(the goal: at least 0.90)."
  } | tee -a "$report"
fi

echo "==> $report"
