#!/usr/bin/env bash
# The three hot reads at a data set larger than memory, from a fresh clone, in one command:
#
#   load/bench/scale.sh --data-dir /srv/kobo-scale [--users 10000000] [--sizes 3000,200000,1000000,10000000]
#                       [--rates 250,500,1000,2000,4000,8000] [--step-seconds 30] [--warmup-seconds 30] [--cold-rate 500] [--cold-seconds 60]
#                       [--only growth,reads,settings,cold] [--fronts rest,grpc,postgres] [--pg-set KEY=VALUE ...]
#                       [--user-offset 0] [--out DIR] [--no-build]
#   load/bench/scale.sh --data-dir /tmp/kobo-scale-small --small
#
# 1. Disk: states what the data sets need (the seed's planned rows per table times the bytes
#    per row measured at 200,000 users, each size its own database, plus max_wal_size and a margin) and refuses when the data
#    directory's disk has less free.
# 2. PostgreSQL: the machine's binaries (/usr/lib/postgresql/*), data in DATA_DIR/pgdata (kept between
#    runs), loopback only, default durability, with the settings for data larger than memory that the
#    embedded server and the local cluster use (deploy/postgres/settings.sh renders the one file).
# 3. growth: for each size up to --users, seeds it (the simulator's seed: resumable, DATA_DIR/seed-*.log)
#    settles it (below) and steps the three reads over REST up to the SLA; one row per size: rate at SLA, p99, service CPU
#    per request, PostgreSQL CPU (/proc/<pid>/stat sampled every 0.25 s, over the run's load window),
#    buffer misses (blks_read) and disk reads (/proc/diskstats) per request.
# 4. reads: at --users, the three reads over REST, gRPC and against the raw database (the simulator's
#    PostgreSQL mode; --fronts picks some of them), each stepped through --rates at constant rate (uniform arrivals, latency from the
#    intended start) until the 200 ms SLA breaks (p99 above 200 ms or more than 0.1% failed): per step the
#    rate, % within 200 ms, p95, p99, p99.9, max and the generator's own CPU. The highlight reads sample
#    the 100,000 heaviest users (the seed's list); user by id reads every user once, shuffled, with no
#    repeats across steps (each step starts where the previous stopped; --user-offset N starts the first
#    step N users in, so that a second run reads users the first did not).
# 5. settings: the large-data settings against their alternatives on the same data, without a restart
#    (load/bench/scale-settings.sh: the reads' plans, an index build, the users' fill factor under a push's
#    updates, WAL per push with and without compression, a throttled vacuum; settings.md).
# 6. cold: stops the service and PostgreSQL, empties the page cache (drop_caches; else vmtouch -e; else
#    posix_fadvise DONTNEED over every file of the data directory; the summary says which), starts both
#    and replays user by id at --cold-rate from the first second: time to first answer and % within
#    200 ms in the first 10, 30 and 60 s.
#
# Before a size is measured it is settled: VACUUM (ANALYZE) once per database (the visibility map and hint
# bits a served database has, which a fresh COPY lacks), then CHECKPOINT, sync (the seed's dirty pages
# written out) and a wait for autovacuum to go idle, so that no step shares the disk with the load's
# aftermath. Before the steps of each read over each front, one unrecorded warm-up of --warmup-seconds at
# the first rate (the JIT, the token cache, the pages of the heaviest users).
# Everything targets loopback and stops by itself: each load step is bounded by its duration and rate,
# each simulator run by a timeout; the service and PostgreSQL are stopped at the end (the data stays in
# DATA_DIR for the next run; a seed of the same size is not repeated). --small is the proof that the
# tooling works: 20,000 users, sizes 3,000 and 20,000, one short step per read and front, a 10 s cold
# start; a couple of minutes at most, run by the simulator's tests.
# --pg-set KEY=VALUE (repeatable) overrides one of the large-data settings for this run, to measure a
# setting against its alternative on the same data (docs/postgres.md).
# Results: OUT (--out, default load/results/scale-<time>): summary.md (the benchmark's table shape), report.html (the summary with
# the latency-over-time plots of the full size's steps and the cold start, and the cost-by-size plots) and
# each simulator run's own report.html.
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."
repo=$(pwd -P)
# shellcheck source=deploy/postgres/settings.sh
. deploy/postgres/settings.sh
# shellcheck source=load/bench/scale-settings.sh
. load/bench/scale-settings.sh
# shellcheck source=load/bench/local-stack.sh
. load/bench/local-stack.sh

data_dir="" users=10000000 sizes=3000,200000,1000000,10000000 rates=250,500,1000,2000,4000,8000 step_seconds=30 warmup_seconds=30 settings_seconds=15
cold_rate=500 cold_seconds=60 only=growth,reads,settings,cold fronts=rest,grpc,postgres build=1 out="" first_user_offset=0
pg_overrides=()
while [ $# -gt 0 ]; do
  case "$1" in
    --data-dir) data_dir="$2"; shift 2 ;;
    --users) users="$2"; shift 2 ;;
    --sizes) sizes="$2"; shift 2 ;;
    --rates) rates="$2"; shift 2 ;;
    --step-seconds) step_seconds="$2"; shift 2 ;;
    --warmup-seconds) warmup_seconds="$2"; shift 2 ;;
    --cold-rate) cold_rate="$2"; shift 2 ;;
    --cold-seconds) cold_seconds="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --fronts) fronts="$2"; shift 2 ;;
    --pg-set)
      [[ "$2" =~ ^[a-z_]+=[^[:space:]]+$ ]] || { echo "--pg-set takes KEY=VALUE (one PostgreSQL setting, no spaces): $2" >&2; exit 2; }
      pg_overrides+=("$2"); shift 2 ;;
    --user-offset) first_user_offset="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --small) users=20000 sizes=3000,20000 rates=100 step_seconds=1 warmup_seconds=1 settings_seconds=1 cold_rate=50 cold_seconds=10; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$data_dir" ] || { echo "--data-dir DIR is required (outside the repository; it keeps the database between runs)" >&2; exit 2; }
stack_data_dir "$data_dir"
for tool in psql curl python3 awk df; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install postgresql-client curl python3)" >&2; exit 2; }; done
has() { case ",$only," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }

stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=${out:-load/results/scale-$stamp}
summary="$out/summary.md" steps_tsv="$out/steps.tsv"
log() { echo "==> $(date -u +%H:%M:%S) $*"; }

# --- build ----------------------------------------------------------------------------------------
if [ "$build" -eq 1 ]; then
  log "building the service and the simulator (Release)"
  dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
  dotnet build src/DeviceSimulator -c Release -v q -nologo >/dev/null
fi
sim=(dotnet src/DeviceSimulator/bin/Release/net10.0/Kobo.Sync.DeviceSimulator.dll)
service_dll=src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll
{ [ -f "${sim[1]}" ] && [ -f "$service_dll" ]; } || { echo "build first (or drop --no-build)" >&2; exit 2; }

# --- disk -----------------------------------------------------------------------------------------
# Bytes per row (table + indexes) measured at 200,000 users (NOTES of the scale tooling; the seed's
# end report gives them again for every size): users 119, books 114, users_books 133, highlights 357.
IFS=',' read -r -a size_list <<<"$sizes"
need_bytes() {
  "${sim[@]}" seed --plan-only --users "$1" | tr ' ' '\n' | awk -F= '
    $1 == "users" { b += $2 * 119 } $1 == "books" { b += $2 * 114 }
    $1 == "users_books" { b += $2 * 133 } $1 == "highlights" { b += $2 * 357 }
    END { printf "%.0f", b * 1.15 }'
}
wal_bytes=$(postgres_large_data_settings 1 | awk -F= '$1 == "max_wal_size" { v = $2; n = v + 0; u = substr(v, length(n "") + 1);
  m = (u == "GB") ? 1073741824 : (u == "MB") ? 1048576 : 1; printf "%.0f", n * m }')
data_bytes=$(need_bytes "$users") kept="$users"
for size in "${size_list[@]}"; do # each size up to --users keeps its own database
  if [ "$size" -lt "$users" ] && has growth; then data_bytes=$((data_bytes + $(need_bytes "$size"))) kept="$kept,$size"; fi
done
need=$((data_bytes + wal_bytes + 1073741824))
existing=$(du -sb "$data_dir" 2>/dev/null | cut -f1)
free=$(df --output=avail -B1 "$data_dir" | tail -1 | tr -d ' ')
gib() { awk -v b="$1" 'BEGIN { printf "%.1f GiB", b / 1073741824 }'; }
log "disk: the data sets of $kept users need about $(gib "$need") (data $(gib "$data_bytes") with 15% margin, WAL up to $(gib "$wal_bytes"), 1 GiB slack); $(gib "$free") free on $data_dir, $(gib "$existing") already there"
if [ $((free + existing)) -lt "$need" ]; then
  echo "refusing: $data_dir has $(gib "$free") free (plus $(gib "$existing") in use there), the run needs about $(gib "$need"). Free some space or choose another --data-dir." >&2
  exit 3
fi

mkdir -p "$out"

# --- processes (load/bench/local-stack.sh) ----------------------------------------------------------
sampler=""
cleanup() {
  [ -z "$sampler" ] || kill "$sampler" 2>/dev/null || true
  stack_stop
}
trap cleanup EXIT
trap 'exit 130' INT TERM
npg="" pg="" data_users=0
stack_init "$data_dir"
for setting in "${pg_overrides[@]}"; do pg_settings+=(-c "$setting"); done # later -c wins
log "PostgreSQL $(basename "$(dirname "$bin")") on 127.0.0.1:$pg_port: $(postgres_large_data_settings 1 | head -3 | tr '\n' ' ')...${pg_overrides[*]:+ overridden: ${pg_overrides[*]}}"
[ ${#pg_overrides[@]} -eq 0 ] || printf '%s\n' "${pg_overrides[@]}" >"$out/pg-overrides"
pg_start

# --- measurements -----------------------------------------------------------------------------------
tick=$(getconf CLK_TCK)
ticks_of() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
pg_ticks() { # postmaster + live children + reaped children
  local pm total pid
  pm=$(postmaster)
  total=$(( $(ticks_of "$pm") + $(awk '{print $16 + $17}' "/proc/$pm/stat") ))
  for pid in $(pgrep -P "$pm"); do total=$(( total + $(ticks_of "$pid") )); done
  echo "$total"
}
# FILE: every 0.25 s "epoch service_ticks postgres_ticks", until stopped; the CPU of a step is read over
# the run's load window only (its start, warm-up and connection set-up left out).
cpu_sampler() {
  local svc
  svc=$(service_process)
  while :; do echo "$(date +%s.%N) $(ticks_of "$svc") $(pg_ticks)"; sleep 0.25; done >"$1"
}
blks_read() { psql "$pg" -qXAtc "SELECT blks_read FROM pg_stat_database WHERE datname = current_database()"; }
disk_device() { # the block device under the data directory, as /proc/diskstats names it
  local dev
  dev=$(df --output=source "$data_dir" | tail -1)
  dev=$(basename "$(readlink -f "$dev")")
  grep -q " $dev " /proc/diskstats && echo "$dev" || echo ""
}
device=$(disk_device)
disk_read_bytes() { [ -n "$device" ] && awk -v d="$device" '$3 == d { printf "%.0f", $6 * 512 }' /proc/diskstats || echo 0; }

# NAME READ TRANSPORT RATE SECONDS OFFSET [WARMUP] [RETRIES]: a one-scenario, one-step profile at constant rate
profile() {
  cat >"$out/$1.json" <<JSON
{ "name": "$1", "seed": 7, "devices": $data_users, "maxConcurrency": 512, "spacing": "uniform", "warmUpSyncs": ${7:-5},
  "userOrder": "shuffled", "userOffset": $6,
  "device": { "timeoutMs": 5000, "maxRetries": ${8:-0}, "baseDelayMs": 100, "maxDelayMs": 1000 },
  "thresholds": { "p99Ms": 200, "failedSyncPercent": 0.1 },
  "scenarios": [ { "read": "$2", "transport": "$3", "steps": [ { "rate": $4, "durationSeconds": $5 } ] } ] }
JSON
}
# NAME: runs $out/NAME.json (bounded: the step plus 2 minutes); exit 1 (a threshold failed) is a result, not an error
run() {
  local name=$1 code=0 seconds
  seconds=$(python3 -c "import json; p = json.load(open('$out/$1.json')); print(int(sum(s['durationSeconds'] for s in p['scenarios'][0]['steps'])) + 120)")
  timeout "$seconds" "${sim[@]}" run --profile "$out/$name.json" --rest "$rest" --grpc "$grpc" --postgres "$npg" \
    --heaviest "$data_dir/heaviest-$data_users.tsv" --users "$data_users" --out "$out/$name" >"$out/$name.log" 2>&1 &
  runner=$!
  wait "$runner" || code=$?
  runner=""
  if [ "$code" -eq 124 ]; then # far past capacity, still draining: a broken step, not a broken script
    echo "    $name did not end within $seconds s (the service is far past its capacity); counted as breaking the SLA" >&2
    return 0
  fi
  [ "$code" -le 1 ] || [ "$code" -eq 4 ] || { echo "simulator run $name failed ($code):" >&2; tail -20 "$out/$name.log" >&2; exit 2; }
}
# NAME: rate, syncs, failed %, within 200 ms %, p95, p99, p99.9, max, generator CPU of a run's only scenario
stats() { python3 load/bench/scale_stats.py step "$out/$1/result.json"; }

# SIZE FRONTS: steps each read over each front until the SLA breaks; appends to steps.tsv
user_offset=$first_user_offset
sla_search() {
  local size=$1 fronts=$2 read transport rate name line before_blks before_disk syncs
  for read in highlights-by-user highlights-by-book user-by-id; do
    for transport in ${fronts//,/ }; do
      name="$size-$read-$transport-warmup"
      profile "$name" "$read" "$transport" "${rates%%,*}" "$warmup_seconds" "$user_offset"
      run "$name"
      [ "$read" != user-by-id ] || user_offset=$((user_offset + $(stats "$name" | cut -f2) + 5))
      for rate in ${rates//,/ }; do
        name="$size-$read-$transport-$rate"
        profile "$name" "$read" "$transport" "$rate" "$step_seconds" "$user_offset"
        before_blks=$(blks_read) before_disk=$(disk_read_bytes)
        cpu_sampler "$out/$name.cpu" &
        sampler=$!
        run "$name"
        kill "$sampler" 2>/dev/null || true
        wait "$sampler" 2>/dev/null || true
        sampler=""
        line=$(stats "$name")
        syncs=$(echo "$line" | cut -f2)
        [ "$read" != user-by-id ] || user_offset=$((user_offset + syncs + 5))
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$size" "$read" "$transport" "$line" \
          "$(python3 load/bench/scale_stats.py window "$out/$name/result.json" "$out/$name.cpu")" \
          "$(( $(blks_read) - before_blks ))" "$(( $(disk_read_bytes) - before_disk ))" >>"$steps_tsv"
        echo "    $read over $transport at $rate/s: $(python3 load/bench/scale_stats.py line "$(tail -1 "$steps_tsv")" "$tick")"
        python3 load/bench/scale_stats.py holds "$(tail -1 "$steps_tsv")" || break
      done
    done
  done
}

printf 'size\tread\ttransport\trate\tsyncs\tfailed_pct\twithin_pct\tp95\tp99\tp999\tmax\tgenerator_cpu\tservice_ticks\tpg_ticks\tblks_read\tdisk_bytes\n' >"$steps_tsv"
echo "$tick" >"$out/clk_tck"

# --- growth, then reads and cold start at the full size ------------------------------------------------
for size in "${size_list[@]}"; do
  [ "$size" -le "$users" ] || { log "growth: skipping $size (above --users $users)"; continue; }
  has growth || [ "$size" -eq "$users" ] || continue
  service_stop
  use_database "$size"
  seed "$size"
  settle "$size"
  service_start; service_wait
  if has growth; then
    log "growth: $size users, the three reads over REST"
    user_offset=$first_user_offset
    sla_search "$size" rest
  fi
done
if [ "$data_users" != "$users" ]; then
  service_stop; use_database "$users"; seed "$users"; settle "$users"; service_start; service_wait
fi
if has reads; then
  has growth || user_offset=$first_user_offset
  log "reads: $users users over ${fronts//,/, }, stepped through $rates/s"
  # REST at this size was stepped by the growth run when the size was in its list.
  if awk -F'\t' -v n="$users" '$1 == n && $3 == "rest" { found = 1 } END { exit !found }' "$steps_tsv"; then
    fronts=$(echo ",$fronts," | sed 's/,rest,/,/; s/^,//; s/,$//')
  fi
  [ -z "$fronts" ] || sla_search "$users" "$fronts"
fi

if has settings; then
  settings_measure
fi

cold_method=""
if has cold; then
  log "cold start: stop, empty the page cache, start, user by id at $cold_rate/s for $cold_seconds s"
  service_stop
  pg_stop
  sync
  if { echo 3 >/proc/sys/vm/drop_caches; } 2>/dev/null; then
    cold_method="echo 3 > /proc/sys/vm/drop_caches (the whole page cache)"
  elif command -v vmtouch >/dev/null && vmtouch -q -e "$pgdata" 2>/dev/null; then
    cold_method="vmtouch -e over the data directory"
  else
    python3 - "$pgdata" <<'PY'
import os, sys
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        try:
            fd = os.open(os.path.join(root, f), os.O_RDONLY)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            os.close(fd)
        except OSError:
            pass
PY
    cold_method="posix_fadvise(DONTNEED) over every file of the data directory"
  fi
  profile cold "user-by-id" rest "$cold_rate" "$cold_seconds" "$user_offset" 0 20
  # The first answer is timed by a real read (the last user, with its token), polled
  # every 50 ms from the moment PostgreSQL is started.
  probe_token=$(Auth__SigningKey=$KOBO_SIM_SIGNING_KEY dotnet "$service_dll" token --users "$users-$users" --device scale-probe --hours 4 | awk -F'\t' 'NF == 2 { print $2 }')
  t0=$(date +%s.%N)
  pg_start
  service_start
  run cold &
  cold_run=$!
  first_answer=""
  for _ in $(seq 1 1200); do
    if curl -fsS -o /dev/null -H "Authorization: Bearer $probe_token" "$rest/v1/users/$users" 2>/dev/null; then
      first_answer=$(python3 -c "import time; print(f'{time.time() - $t0:.2f}')")
      break
    fi
    sleep 0.05
  done
  service_wait
  wait "$cold_run"
  python3 load/bench/scale_stats.py cold "$out/cold/result.json" "$t0" "${first_answer:-none}" "$cold_method" >"$out/cold.md"
  cat "$out/cold.md"
fi

python3 load/bench/scale_stats.py summary "$out" "$users" "$rates" "$step_seconds" >"$summary"
python3 load/bench/scale_stats.py report "$out" >/dev/null
log "summary: $summary (with its plots: $out/report.html)"
cat "$summary"
