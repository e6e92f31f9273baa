#!/usr/bin/env bash
# The release gate: a fleet's day of retrying device syncs (load/profiles/release-gate.json's mix) at a
# constant rate, from distinct devices, in simulator shards run as separate processes, merged exactly;
# the SLA judged per step and per 10-minute window; every acknowledged push and every ledgered pull
# checked against the database afterwards; the service's memory, GC and thread pool and PostgreSQL's
# growth, autovacuum and connections sampled over the run. One command:
#
#   load/release-gate.sh --data-dir /srv/kobo-gate [--users 10000000] [--syncs 10000000] [--rate 2000]
#                        [--shards 2] [--mix KIND=PCT[,KIND=PCT...]] [--devices N] [--p99-ms 200] [--out DIR] [--no-build]
#   load/release-gate.sh --small [--p99-ms X] [--mix ...]
#                                                      # the proof that the gate works: seconds, in the test command
#   load/release-gate.sh --rest URL --grpc URL --postgres CONN --heaviest FILE --users N ...
#                                                      # a deployed target (the Terraform outputs): nothing started here
#
# --mix sets the day's kinds of sync in percent of the syncs (scheduled, active, firstSync, drawer; whole or
# decimal numbers adding up to 100; a kind not named is 0): --mix scheduled=100 runs one kind alone.
# --devices N draws the syncs from N devices in turn instead of one device per sync: with a few thousand,
# every device's token is one the service has seen and cached, so the same run with and without it
# gives what a token seen for the first time costs at the data set's size. By
# default the profile's mix (scheduled=80,active=15,firstSync=4.5,drawer=0.5). The warm-up runs the same mix.
#
# Local target: PostgreSQL (the machine's binaries, data in DATA_DIR/pgdata, the large-data settings of
# deploy/postgres/settings.sh, loopback only) with DATA_DIR's seed of --users users (seeded once, as
# load/bench/scale.sh does: the same layout, so both share a data directory), and the service (Release
# build). Every process targets loopback and stops by itself: the simulator shards are bounded by
# their step plus a margin, the samplers by the run, the service and PostgreSQL are stopped at the end.
# A deployed target needs the service's signing and cursor keys in KOBO_SIM_SIGNING_KEY and
# KOBO_SIM_CURSOR_KEY and the database's connection string for the checks (a read replica is not
# enough: the checks read what was acknowledged).
#
# Results: OUT (default load/results/release-gate-<time>): summary.md (the verdict, the run's figures, the
# cost per sync, the windows, the checks, the samples), cost.json (the cost per sync over the judged run, from
# just before the shards start to just after the last ends: CPU of the service, PostgreSQL and the shards,
# local target only; PostgreSQL's commits, WAL bytes, blocks read, hit and written; the requests sent),
# report.html (the merged simulator report: latency over time per shard, the gate's checks, and
# release-gate.html beside it with the samples' charts), shard-*/ and merged/ (the simulator's reports),
# ledger/ (what the devices were told), samples/ (TSV).
# Exit code: 0 the gate passed and nothing was lost or missed; 1 a threshold or a check failed; 4 not
# proven (the generator was saturated); 2 bad options or a broken set-up.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd -P)
# shellcheck source=deploy/postgres/settings.sh
. deploy/postgres/settings.sh
# shellcheck source=load/bench/local-stack.sh
. load/bench/local-stack.sh
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }

data_dir="" users=10000000 syncs=10000000 rate=2000 shards=2 p99="" out="" build=1 small=0 warmup=200 warm_seconds=60
rest="" grpc="" npg="" heaviest="" mix="" devices=""
while [ $# -gt 0 ]; do
  case "$1" in
    --data-dir) data_dir="$2"; shift 2 ;;
    --users) users="$2"; shift 2 ;;
    --syncs) syncs="$2"; shift 2 ;;
    --rate) rate="$2"; shift 2 ;;
    --shards) shards="$2"; shift 2 ;;
    --p99-ms) p99="$2"; shift 2 ;;
    --devices) devices="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --rest) rest="$2"; shift 2 ;;
    --grpc) grpc="$2"; shift 2 ;;
    --postgres) npg="$2"; shift 2 ;;
    --heaviest) heaviest="$2"; shift 2 ;;
    --small) small=1 users=2000 syncs=600 rate=60 shards=2 warmup=10 warm_seconds=5; shift ;;
    --mix) [ $# -ge 2 ] || { echo "--mix needs KIND=PCT[,KIND=PCT...]" >&2; exit 2; }; mix="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for n in "$users" "$syncs" "$rate" "$shards" ${devices:+"$devices"}; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "--users, --syncs, --rate, --shards and --devices take whole numbers above 0" >&2; exit 2; }
done
[ -z "$devices" ] || [ "$devices" -ge "$shards" ] || { echo "--devices must be at least --shards (each shard syncs from its own devices)" >&2; exit 2; }
if [ -n "$mix" ]; then # KIND=PCT,...: known kinds, each once, whole or decimal percentages adding up to 100
  mix_error() { echo "--mix $mix: $1 (KIND=PCT[,KIND=PCT...], kinds scheduled, active, firstSync, drawer, adding up to 100)" >&2; exit 2; }
  [[ "$mix" =~ ^[^,]+(,[^,]+)*$ ]] || mix_error "an empty entry"
  declare -A mix_of=()
  IFS=, read -ra mix_items <<<"$mix"
  for item in "${mix_items[@]}"; do
    kind=${item%%=*} pct=${item#*=}
    [[ "$item" == *=* ]] || mix_error "$item is not KIND=PCT"
    case "$kind" in scheduled|active|firstSync|drawer) ;; *) mix_error "unknown kind $kind" ;; esac
    [ -z "${mix_of[$kind]:-}" ] || mix_error "$kind is given twice"
    [[ "$pct" =~ ^[0-9]+(\.[0-9]+)?$ ]] || mix_error "$kind=$pct: the percentage must be a whole or decimal number"
    mix_of[$kind]=$pct
  done
  # summed in the simulator's order, held to its tolerance (DayMix)
  awk -v a="${mix_of[scheduled]:-0}" -v b="${mix_of[active]:-0}" -v c="${mix_of[firstSync]:-0}" -v d="${mix_of[drawer]:-0}" \
    'BEGIN { s = a + b + c + d; exit !(s - 100 <= 1e-9 && 100 - s <= 1e-9) }' || mix_error "the percentages add up to $(awk -v m="$mix" 'BEGIN { n = split(m, e, ","); for (i = 1; i <= n; i++) { split(e[i], kv, "="); s += kv[2] } print s }'), not 100"
fi
[ $((syncs % shards)) -eq 0 ] || { echo "--syncs must divide by --shards (each shard runs its share from its own devices)" >&2; exit 2; }
local_target=1
if [ -n "$rest" ]; then
  local_target=0
  [ -n "$npg" ] && [ -n "$heaviest" ] || { echo "a deployed target needs --rest, --postgres and --heaviest" >&2; exit 2; }
fi
stamp=$(date -u +%Y%m%dT%H%M%SZ)
out=${out:-load/results/release-gate-$stamp}
if [ "$local_target" -eq 1 ] && [ -z "$data_dir" ]; then
  [ "$small" -eq 1 ] || { echo "--data-dir DIR is required (outside the repository; it keeps the seeded database between runs)" >&2; exit 2; }
  data_dir=$(mktemp -d /tmp/kobo-release-gate.XXXXXX)
  trap 'rm -rf "$data_dir"' EXIT
fi
mkdir -p "$out"/samples "$out"/ledger
out=$(cd "$out" && pwd -P)
log() { echo "==> $(date -u +%H:%M:%S) $*" | tee -a "$out/gate.log"; }
for tool in psql curl python3 awk; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install postgresql-client curl python3)" >&2; exit 2; }; done

if [ "$build" -eq 1 ]; then
  log "building the service and the simulator (Release)"
  dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
  dotnet build src/DeviceSimulator -c Release -v q -nologo >/dev/null
fi
sim=(dotnet "$repo/src/DeviceSimulator/bin/Release/net10.0/Kobo.Sync.DeviceSimulator.dll")
service_dll=$repo/src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll
[ -f "${sim[1]}" ] && [ -f "$service_dll" ] || { echo "build first (or drop --no-build)" >&2; exit 2; }

# --- the local set-up (load/bench/local-stack.sh): PostgreSQL with the seed, and the service ----------
samplers=()
cleanup() {
  local pid
  for pid in "${samplers[@]}"; do kill "$pid" 2>/dev/null || true; done
  stack_stop
  [ "$small" -eq 0 ] || [ -z "$data_dir" ] || [[ "$data_dir" != /tmp/kobo-release-gate.* ]] || rm -rf "$data_dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$local_target" -eq 1 ]; then
  service_log=$out/service.log
  stack_init "$data_dir"
  [ "$small" -eq 0 ] || pg_settings=(-c shared_buffers=128MB)
  pg_start
  db=kobo_sync_$users
  use_database "$users"
  heaviest="$data_dir/heaviest-$users.tsv"
  seed "$users"
  settle "$users"
  # A release is judged on a serving system, whose cache holds what every sync reads: the indexes of the
  # delta pull's streams, of the users and of the devices are read into the OS page cache first
  # (pg_prewarm 'read'; a cold start is measured by load/bench/scale.sh).
  log "PostgreSQL on 127.0.0.1:$pg_port, $db ($users users); reading the indexes every sync reads into the page cache"
  psql "$pg" -qXAt -c "CREATE EXTENSION IF NOT EXISTS pg_prewarm" -c "CHECKPOINT" -c "
    SELECT pg_size_pretty(sum(pg_prewarm(c.oid, 'read'::text) * current_setting('block_size')::bigint))
    FROM pg_class c WHERE c.relkind = 'i' AND c.relname IN ('highlights_changes', 'users_books_changes', 'users_pkey', 'devices_pkey',
      'reading_states_changes', 'reading_states_pkey', 'collections_changes', 'sync_purge_horizons_pkey')" | tail -1 | sed 's/^/    read: /' | tee -a "$out/gate.log"
  service_start
  service_wait
  log "service on $rest (gRPC $grpc)"
fi
case "$rest" in http://127.*|http://localhost*|https://*) ;; *) [ "$local_target" -eq 0 ] || { echo "the local target is loopback only" >&2; exit 2; } ;; esac
pg_conn=$(python3 - "$npg" <<'PY'
import sys
parts = dict(p.split('=', 1) for p in sys.argv[1].split(';') if '=' in p)
keys = {'host': 'Host', 'port': 'Port', 'dbname': 'Database', 'user': 'Username', 'password': 'Password'}
print(' '.join(f"{k}={parts[v]}" for k, v in keys.items() if v in parts))
PY
)

# --- the profile ---------------------------------------------------------------------------------------
seconds=$(( syncs / rate ))
[ "$seconds" -ge 1 ] || { echo "--syncs must be at least --rate (a run of at least one second)" >&2; exit 2; }
python3 - "$repo/load/profiles/release-gate.json" "$out/profile.json" "$rate" "$seconds" "$syncs" "$warmup" "${p99:-}" "$small" "$mix" "$devices" <<'PY'
import json, sys
src, dst, rate, seconds, syncs, warmup, p99, small, mix, devices = sys.argv[1:]
p = json.load(open(src))
# n syncs from n distinct devices, the warm-up's beside them; --devices: from that many in turn
p['devices'] = int(devices) if devices else int(syncs) + int(warmup)
p['warmUpSyncs'] = int(warmup)
for s in p['scenarios']:
    s['steps'] = [{'rate': int(rate), 'durationSeconds': int(seconds)}]
    if mix and s.get('read') == 'day':  # --mix: every kind written, those not named 0
        given = dict(e.split('=', 1) for e in mix.split(','))
        s['mix'] = {k: (int(v) if v.isdigit() else float(v)) for k, v in ((k, given.get(k, '0')) for k in ('scheduled', 'active', 'firstSync', 'drawer'))}
if p99:
    p['thresholds']['p99Ms'] = float(p99)
if small == '1':  # the test command shares two cores with the other test projects: it proves the path, not the SLA
    p['thresholds']['p99Ms'] = float(p99) if p99 else 5000
    p['thresholds']['sessionP99Ms'] = 5000
json.dump(p, open(dst, 'w'), indent=2)
PY

# The warm-up: a serving system has compiled its code, grown its pools and its thread pool. A minute of
# the same traffic ramping up to the rate, from devices beyond the run's (the second half of a fleet twice
# the size: a shard's range), unjudged and unrecorded; its pushes are stored like any.
python3 - "$out/profile.json" "$out/warm-up.json" "$rate" "$warm_seconds" <<'PY'
import json, sys
src, dst, rate, seconds = sys.argv[1:]
p = json.load(open(src))
p['devices'] *= 2
p['warmUpSyncs'] = 0
for s in p['scenarios']:  # as shard 2/2 of 2, it sends half of each rate
    s['steps'] = [{'rate': max(1, int(rate) // 5), 'rampTo': 2 * int(rate), 'durationSeconds': int(seconds)}]
json.dump(p, open(dst, 'w'), indent=2)
PY

# --- samples over the run: the service, PostgreSQL ------------------------------------------------------
sample_service() { # every 10 s: the service's RSS, threads and its own /metrics' runtime figures
  local pid
  pid=$(service_process || true)
  echo -e "epoch\trss_bytes\tthreads\tgc_heap_bytes\tgc_collections\tgc_pause_seconds\tthread_pool_threads\tthread_pool_queue\tallocated_bytes" >"$out/samples/service.tsv"
  while :; do
    curl -fsS --max-time 5 "$rest/metrics" 2>/dev/null | awk -v now="$(date +%s)" -v rss="$( [ -n "$pid" ] && awk '/VmRSS/ {print $2 * 1024}' "/proc/$pid/status" 2>/dev/null || echo)" \
      -v thr="$( [ -n "$pid" ] && awk '/Threads/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo)" '
      /^dotnet_gc_last_collection_heap_size_bytes/ { heap += $NF }
      /^dotnet_gc_collections_total/ { gcs += $NF }
      /^dotnet_gc_pause_time_seconds_total/ { pause = $NF }
      /^dotnet_thread_pool_thread_count/ { threads = $NF }
      /^dotnet_thread_pool_queue_length/ { queue = $NF }
      /^dotnet_gc_heap_total_allocated_bytes_total/ { alloc = $NF }
      END { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", now, rss, thr, heap, gcs, pause, threads, queue, alloc }' >>"$out/samples/service.tsv" || true
    sleep 10
  done
}
sample_postgres() { # every 60 s: table and index bytes, autovacuum, connections
  echo -e "epoch\ttable\ttable_bytes\tindex_bytes\trows_estimate\tdead_rows\tautovacuums\tautoanalyzes\tautovacuum_workers\tconnections" >"$out/samples/postgres.tsv"
  while :; do
    psql "$pg_conn" -qXAt -F $'\t' -c "
      SELECT extract(epoch FROM now())::bigint, s.relname, pg_table_size(s.relid), pg_indexes_size(s.relid), s.n_live_tup, s.n_dead_tup,
             s.autovacuum_count, s.autoanalyze_count,
             (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'),
             (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')
      FROM pg_stat_user_tables s WHERE s.relname IN ('users', 'users_books', 'highlights', 'reading_states', 'devices', 'collections')
      ORDER BY s.relname" >>"$out/samples/postgres.tsv" 2>/dev/null || true
    sleep 60
  done
}
sample_service & samplers+=($!)
sample_postgres & samplers+=($!)

# --- the cost per sync: what the judged run used, read just before the shards start and just after the last ends
# CPU in clock ticks (local target only; load/bench/lib.sh): the service process; PostgreSQL, the postmaster with
# its live children and what its exited children used (cutime, cstime: backends come and go); the shards, each
# read at its end as its subshell's reaped children. The database's cumulative statistics: this database's
# commits and blocks, the server's WAL and buffers written, and the next transaction id (only a transaction
# that writes takes one). A backend reports its statistics at most once a second, so up to a second of work
# at each end moves across the window: the warm-up's last second in (the same mix, at the run's rate), the
# run's last second out. Before: the statistics, then the CPU; after: the CPU, then the statistics, so that
# the readings' own queries stay out of it.
service_pid=""
[ "$local_target" -eq 0 ] || service_pid=$(service_process || true)
echo -e "when\tepoch\tclk_tck\tservice_ticks\tpostgres_ticks\tgenerator_ticks\txact_commit\txact_rollback\tblks_read\tblks_hit\twal_bytes\tbuffers_checkpoint\tbuffers_clean\tbuffers_backend\tnext_xid" >"$out/samples/cost.tsv"
db_totals() {
  psql "$pg_conn" -qXAt -F $'\t' -c "
    SELECT d.xact_commit, d.xact_rollback, d.blks_read, d.blks_hit, w.wal_bytes, b.buffers_checkpoint, b.buffers_clean, b.buffers_backend,
           pg_snapshot_xmax(pg_current_snapshot())
    FROM pg_stat_database d, pg_stat_wal w, pg_stat_bgwriter b WHERE d.datname = current_database()" 2>>"$out/gate.log" || true
}
cost_reading() { # before|after [GENERATOR_TICKS]: one line of samples/cost.tsv
  local db="" service_ticks="" postgres_ticks=""
  [ "$1" = after ] || db=$(db_totals)
  if [ "$local_target" -eq 1 ]; then
    [ -z "$service_pid" ] || service_ticks=$(bench_own_ticks "$service_pid" 2>/dev/null || true)
    postgres_ticks=$(bench_pg_ticks "$(postmaster)" 2>/dev/null || true)
  fi
  [ "$1" = before ] || db=$(db_totals)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$(date +%s.%N)" "$(getconf CLK_TCK)" "$service_ticks" "$postgres_ticks" "${2:-0}" "$db" >>"$out/samples/cost.tsv"
}

# --- the run: the shards as separate processes, then merged and checked ---------------------------------
# The devices that synced before the run (all but the first syncs' new devices) are known to the service,
# as on a normal day: each shard registers its own before any shard starts its load.
log "making the devices that synced before the run known to the service"
pids=()
for i in $(seq 1 "$shards"); do
  "${sim[@]}" run --profile "$out/profile.json" --rest "$rest" --grpc "$grpc" --heaviest "$heaviest" --users "$users" --shard "$i/$shards" \
    --register-devices "$npg" >"$out/register-$i.log" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || { echo "registering the devices failed:" >&2; cat "$out"/register-*.log >&2; exit 2; }; done
psql "$pg_conn" -qXc "VACUUM (ANALYZE) devices" >/dev/null
# On this machine the simulator shares the cores with the service and PostgreSQL: as root, its processes
# run at a higher CPU priority (nice -10), as a load machine of its own would, so that its schedule holds
# (the generator's CPU and dispatch lag are in the report; a late generator makes the run not proven).
priority=()
[ "$local_target" -eq 0 ] || [ "$(id -u)" -ne 0 ] || priority=(nice -n -10)
log "warm-up: $warm_seconds s ramping up to $rate/s from other devices (unjudged)"
warm_code=0
timeout 600 "${priority[@]}" "${sim[@]}" run --profile "$out/warm-up.json" --rest "$rest" --grpc "$grpc" --heaviest "$heaviest" --users "$users" \
  --shard 2/2 --out "$out/warm-up" >"$out/warm-up.log" 2>&1 || warm_code=$?
[ "$warm_code" -le 1 ] || [ "$warm_code" -eq 4 ] || { echo "the warm-up failed ($warm_code):" >&2; tail -20 "$out/warm-up.log" >&2; exit 2; }
log "release gate: $syncs syncs from ${devices:-$syncs distinct} devices at $rate/s ($seconds s) in $shards shards, $users users, mix ${mix:-of the profile}"
cost_reading before
pids=()
for i in $(seq 1 "$shards"); do
  ( # the shard's CPU: what this subshell's reaped children used (timeout, and the simulator it waited for)
    code=0
    timeout $((seconds + 600)) "${priority[@]}" "${sim[@]}" run --profile "$out/profile.json" --rest "$rest" --grpc "$grpc" \
      --heaviest "$heaviest" --users "$users" --shard "$i/$shards" --ledger "$out/ledger" --out "$out/shard-$i" >"$out/shard-$i.log" 2>&1 || code=$?
    bench_children_ticks "$BASHPID" >"$out/samples/shard-$i.ticks"
    exit "$code"
  ) &
  pids+=($!)
done
codes=()
for pid in "${pids[@]}"; do code=0; wait "$pid" || code=$?; codes+=("$code"); done
cost_reading after "$(cat "$out"/samples/shard-*.ticks 2>/dev/null | awk '{ t += $1 } END { print t + 0 }')"
for pid in "${samplers[@]}"; do kill "$pid" 2>/dev/null || true; done
samplers=()
for i in $(seq 1 "$shards"); do
  c=${codes[$((i - 1))]}
  [ "$c" -le 1 ] || [ "$c" -eq 4 ] || { echo "simulator shard $i failed ($c):" >&2; tail -20 "$out/shard-$i.log" >&2; exit 2; }
done
log "merging the shards"
merge_code=0
"${sim[@]}" merge "$out"/shard-*/result.json --out "$out/merged" >"$out/merge.log" 2>&1 || merge_code=$?
[ "$merge_code" -le 1 ] || [ "$merge_code" -eq 4 ] || { echo "merge failed ($merge_code):" >&2; tail -20 "$out/merge.log" >&2; exit 2; }
log "checking every acknowledged push and every ledgered pull against the database"
verify_code=0
"${sim[@]}" verify "$out/ledger" --postgres "$npg" --out "$out" >"$out/verify.log" 2>&1 || verify_code=$?
[ "$verify_code" -le 1 ] || { echo "verify failed ($verify_code):" >&2; tail -20 "$out/verify.log" >&2; exit 2; }
python3 load/bench/release_gate_report.py "$out" "$merge_code" "$verify_code"
cp "$out/merged/report.html" "$out/report.html"
code=0
if [ "$merge_code" -eq 1 ] || [ "$verify_code" -ne 0 ]; then code=1; elif [ "$merge_code" -eq 4 ]; then code=4; fi
log "summary: $out/summary.md; report: $out/report.html; samples: $out/release-gate.html"
tail -1 "$out/merge.log" | tee -a "$out/gate.log"
tail -1 "$out/verify.log" | tee -a "$out/gate.log"
exit "$code"
