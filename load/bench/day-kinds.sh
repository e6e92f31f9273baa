#!/usr/bin/env bash
# What each kind of a fleet's day's syncs costs: the release gate (load/release-gate.sh) run once per kind,
# each kind alone (--mix KIND=100; "mix" is the profile's own mix), all at the same fixed rate and length on
# the same data directory's seed, and one table of their cost per sync (each gate's cost.json):
#
#   load/bench/day-kinds.sh --data-dir DIR [--users 10000000] [--rate 300] [--seconds 120]
#                           [--kinds scheduled,active,firstSync,drawer,mix] [--out DIR] [--no-build]
#   load/bench/day-kinds.sh --small [--data-dir DIR] [--kinds scheduled,active] [--no-build]
#                           # the proof: two kinds at the gate's --small sizes (2,000 users, 60/s for 10 s);
#                           # the test command runs it
#
# The first gate builds the service and the simulator (unless --no-build) and seeds DATA_DIR when it holds no
# seed of --users users; the others run with --no-build on the same seed. Each gate makes RATE x SECONDS syncs
# (an even number: the gate's two shards) and keeps its results in OUT/KIND/ (OUT by default
# load/results/day-kinds-<time>). OUT/day-kinds.md: the command that made it, then a row per kind: syncs, the
# gate's verdict, CPU µs per sync of the service, PostgreSQL, the generator (the simulator shards) and their
# total, then per sync: commits, WAL bytes, blocks read, blocks hit, blocks written, requests, and the p99 of
# a whole sync in ms (docs/operations.md, "The release gate", says what each is read from). Do not run
# it on a machine that runs anything else heavy: every process's CPU counts, PostgreSQL's WAL and buffers
# written are the whole server's.
# A gate that exits 1 (a threshold failed) or 4 (not proven: the generator was saturated) still gives its
# row, with its verdict; one that exits 2 (a broken set-up), or that leaves no cost.json, stops the run.
# Exit code: 0 every kind ran, whatever its verdict; 2 bad options or a gate that could not run.
set -euo pipefail
command_line=load/bench/day-kinds.sh
for arg in "$@"; do # as typed: quoted only when the shell needs it
  if [[ "$arg" =~ ^[A-Za-z0-9_./,=:+-]+$ ]]; then command_line+=" $arg"; else command_line+=" $(printf '%q' "$arg")"; fi
done
cd "$(dirname "$0")/../.."
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }

data_dir="" users=10000000 rate=300 seconds=120 kinds="-" out="" build=1 small=0
while [ $# -gt 0 ]; do
  case "$1" in
    --data-dir|--users|--rate|--seconds|--kinds|--out)
      [ $# -ge 2 ] || { echo "$1 needs a value" >&2; usage >&2; exit 2; }
      case "$1" in
        --data-dir) data_dir="$2" ;; --users) users="$2" ;; --rate) rate="$2" ;;
        --seconds) seconds="$2" ;; --kinds) kinds="$2" ;; --out) out="$2" ;;
      esac
      shift 2 ;;
    --no-build) build=0; shift ;;
    --small) small=1 users=2000 rate=60 seconds=10; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
if [ "$kinds" = - ]; then # not given
  if [ "$small" -eq 1 ]; then kinds=scheduled,active; else kinds=scheduled,active,firstSync,drawer,mix; fi
fi
for n in "$users" "$rate" "$seconds"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || { echo "--users, --rate and --seconds take whole numbers above 0" >&2; exit 2; }
done
syncs=$((rate * seconds))
[ $((syncs % 2)) -eq 0 ] || { echo "--rate x --seconds must be even: the gate runs two shards of as many syncs" >&2; exit 2; }
IFS=, read -ra kind_list <<<"$kinds"
[[ "$kinds" =~ ^[^,]+(,[^,]+)*$ ]] || { echo "--kinds takes a comma-separated list" >&2; exit 2; }
for kind in "${kind_list[@]}"; do
  case "$kind" in scheduled|active|firstSync|drawer|mix) ;; *) echo "unknown kind $kind (scheduled, active, firstSync, drawer, mix)" >&2; exit 2 ;; esac
done
if [ -z "$data_dir" ]; then
  [ "$small" -eq 1 ] || { echo "--data-dir DIR is required (outside the repository; it keeps the seeded database between runs)" >&2; exit 2; }
  data_dir=$(mktemp -d /tmp/kobo-day-kinds.XXXXXX)
  trap 'rm -rf "$data_dir"' EXIT
fi
out=${out:-load/results/day-kinds-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"
out=$(cd "$out" && pwd -P)

verdicts=()
for kind in "${kind_list[@]}"; do
  args=(--data-dir "$data_dir" --users "$users" --syncs "$syncs" --rate "$rate" --out "$out/$kind")
  [ "$small" -eq 0 ] || args=(--small "${args[@]}")
  [ "$build" -eq 1 ] || args+=(--no-build)
  [ "$kind" = mix ] || args+=(--mix "$kind=100")
  echo "==> $(date -u +%H:%M:%S) $kind: load/release-gate.sh ${args[*]}"
  code=0
  load/release-gate.sh "${args[@]}" || code=$?
  build=0 # built once, by the first gate
  case "$code" in
    0) verdicts+=("PASS") ;;
    1) verdicts+=("FAIL") ;;
    4) verdicts+=("NOT PROVEN") ;;
    *) echo "the gate of $kind exited $code: stopping (its log: $out/$kind/gate.log)" >&2; exit 2 ;;
  esac
  [ -f "$out/$kind/cost.json" ] || { echo "the gate of $kind exited $code without its cost.json: stopping (its log: $out/$kind/gate.log)" >&2; exit 2; }
done

python3 - "$out" "$command_line" "$(git rev-parse --short HEAD 2>/dev/null || echo -)" "$users" "$rate" "$seconds" "$kinds" "${verdicts[@]}" <<'PY'
import datetime, json, os, sys
out, command, commit, users, rate, seconds, kinds = sys.argv[1:8]
verdicts = sys.argv[8:]
def fmt(v, digits):
    return '-' if v is None else f"{v:,.{digits}f}"
rows = []
for kind, verdict in zip(kinds.split(','), verdicts):
    c = json.load(open(os.path.join(out, kind, 'cost.json')))
    cpu, db = c['cpuMicrosecondsPerSync'], c['databasePerSync']
    rows.append(f"| [{kind}]({kind}/summary.md) | {c['syncs']:,} | {verdict} | {fmt(cpu['service'], 0)} | {fmt(cpu['postgres'], 0)} | {fmt(cpu['generator'], 0)} "
                f"| {fmt(cpu['total'], 0)} | {fmt(db['commits'], 2)} | {fmt(db['walBytes'], 0)} | {fmt(db['blocksRead'], 2)} | {fmt(db['blocksHit'], 1)} "
                f"| {fmt(db['blocksWritten'], 2)} | {fmt(c['requestsPerSync'], 2)} | {fmt(c['p99Ms'], 1)} |")
lines = ["# The cost of each kind of sync", "", "```sh", command, "```", "",
         f"Commit {commit}, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC. Each kind alone (`--mix KIND=100`; "
         f"`mix` the profile's own mix) through the release gate at {int(rate):,} syncs/s for {int(seconds):,} s, {int(users):,} users; "
         "per sync over each judged run (the gate's cost.json; a kind's link is its summary).", "",
         "| kind | syncs | verdict | CPU µs service | CPU µs PostgreSQL | CPU µs generator | CPU µs total | commits | WAL bytes | blocks read | blocks hit | blocks written | requests | p99 ms |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows + ["",
         "CPU: user + system time from /proc of the service process, of PostgreSQL (the postmaster and all its children) and of the "
         "simulator shards. Commits: pg_stat_database.xact_commit; WAL bytes: pg_stat_wal.wal_bytes; blocks read and hit: "
         "pg_stat_database.blks_read and blks_hit; blocks written: pg_stat_bgwriter.buffers_checkpoint + buffers_clean + buffers_backend; "
         "requests: every request the simulator sent, retries included; p99: a whole sync, from its intended start."]
open(os.path.join(out, 'day-kinds.md'), 'w').write('\n'.join(lines) + '\n')
print('\n'.join(lines))
PY
echo "==> $out/day-kinds.md"
