#!/usr/bin/env bash
# The performance watch: two commits of the service measured side by side on one database, so that a
# change that makes a request allocate or burn more than it did is caught before it lands.
#
#   load/bench/watch.sh BASE [HEAD] [--rounds 6] [--seconds 5] [--warmup 5] [--pg-port 5460] [--port 5470]
#       [--figures "user highlights book push kobo sync fresh"] [--max-bytes-rise 10] [--max-bytes-rise-abs 2048] [--max-cpu-rise 25]
#       [--history load/bench/watch-history.tsv | --no-history]
#
# BASE and HEAD are any commits (HEAD by default). Each is built (Release) in a detached git worktree of
# its own in a temporary directory outside the repository. HEAD's build starts its embedded PostgreSQL
# with the demo data (3,000 users) on a data directory in that temporary directory (port --pg-port) and
# listens on loopback port --port (gRPC on the next); BASE's build runs on the same database, on the two
# ports after those. Then, for each figure:
#
#   user        GET /v1/users/N
#   highlights  GET /v1/users/N/highlights, first page
#   book        GET /v1/users/N/books/B/highlights, first page, over the books users have highlights on
#   push        POST /v1/users/N/changes with 10 highlight changes, every one applied
#   kobo        GET /kobo/{secret}/v1/library/sync, the first page (no sync token), one Kobo link a user
#   sync        GET /v1/users/N/changes?since=TOKEN with a caught-up token: a scheduled sync that finds
#               nothing new (each user pulls everything once first)
#   fresh       GET /v1/users/N, every request with a token the service has not seen lately (20 devices a
#               user, 60,000 tokens on the demo data, more than the validated-token cache holds)
#
# each build is warmed up once, unrecorded (--warmup seconds), and then measured in --rounds rounds of
# --seconds each under wrk, BASE then HEAD in every round (A B A B), with the loads of cost.sh
# (load/bench/lib.sh). For each figure and build it reports the managed bytes allocated per request (the
# service's /metrics, dotnet_gc_heap_total_allocated_bytes_total: steady from round to round) and the
# service's CPU per request (from /proc; the median of the rounds: noisy on a shared box, hence its wider
# threshold).
#
# It appends HEAD's figures (and BASE's, the first time BASE is measured) to the history file, one row per
# commit and figure, and redraws the history beside it as SVG (load/bench/watch_plot.py).
#
# Exit status: 0 when no figure regressed; 1 when, against BASE, a figure's bytes per request rose by more
# than --max-bytes-rise percent (10) or by more than --max-bytes-rise-abs bytes (2048: a push allocates
# about 45 KB, whose 10% would hide a few KB a request), or its CPU per request by more than
# --max-cpu-rise percent (25), and
# the figures that did are named; 2 on a usage or setup error (a bad commit, a build that fails, a service
# that does not start, a load that was refused). Loopback only; every step is bounded in time; the
# services, their PostgreSQL and the worktrees are removed at the end, on failure and on Ctrl-C too.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }

base_ref="" head_ref="" rounds=6 seconds=5 warmup=5 pg_port=5460 port=5470
figures="user highlights book push kobo sync fresh" max_bytes=10 max_bytes_abs=2048 max_cpu=25
history=load/bench/watch-history.tsv
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) rounds="${2:-}"; shift 2 ;;
    --seconds) seconds="${2:-}"; shift 2 ;;
    --warmup) warmup="${2:-}"; shift 2 ;;
    --pg-port) pg_port="${2:-}"; shift 2 ;;
    --port) port="${2:-}"; shift 2 ;;
    --figures) figures="${2:-}"; shift 2 ;;
    --max-bytes-rise) max_bytes="${2:-}"; shift 2 ;;
    --max-bytes-rise-abs) max_bytes_abs="${2:-}"; shift 2 ;;
    --max-cpu-rise) max_cpu="${2:-}"; shift 2 ;;
    --history) history="${2:-}"; shift 2 ;;
    --no-history) history=""; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    *)
      if [ -z "$base_ref" ]; then base_ref="$1"; elif [ -z "$head_ref" ]; then head_ref="$1"; else echo "one BASE and at most one HEAD: $1" >&2; usage >&2; exit 2; fi
      shift ;;
  esac
done
[ -n "$base_ref" ] || { usage >&2; exit 2; }
head_ref=${head_ref:-HEAD}
for number in "$rounds" "$seconds" "$warmup" "$pg_port" "$port" "$max_bytes" "$max_bytes_abs" "$max_cpu"; do
  [[ "$number" =~ ^[0-9]+$ ]] || { echo "not a whole number: '$number'" >&2; exit 2; }
done
if [ "$rounds" -lt 1 ] || [ "$rounds" -gt 50 ] || [ "$seconds" -lt 1 ] || [ "$seconds" -gt 120 ] || [ "$warmup" -gt 120 ]; then
  echo "--rounds must be 1 to 50, --seconds 1 to 120 and --warmup 0 to 120" >&2
  exit 2
fi
for figure in $figures; do
  case "$figure" in user|highlights|book|push|kobo|sync|fresh) ;; *) echo "unknown figure: $figure (user, highlights, book, push, kobo, sync, fresh)" >&2; exit 2 ;; esac
done
for tool in git dotnet wrk psql curl ss runuser /usr/bin/python3; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install wrk postgresql-client curl iproute2)" >&2; exit 2; }
done
base_sha=$(git rev-parse --verify --quiet "$base_ref^{commit}") || { echo "not a commit: $base_ref" >&2; exit 2; }
head_sha=$(git rev-parse --verify --quiet "$head_ref^{commit}") || { echo "not a commit: $head_ref" >&2; exit 2; }
head_url="http://127.0.0.1:$port" base_url="http://127.0.0.1:$((port + 2))"
for p in "$pg_port" "$port" $((port + 1)) $((port + 2)) $((port + 3)); do
  [ -z "$(bench_listener "$p")" ] || { echo "port $p is taken: choose others with --port / --pg-port" >&2; exit 2; }
done

started=$(date -u +%s)
progress() { echo "[watch $(( $(date -u +%s) - started ))s] $*" >&2; }

work=$(mktemp -d /tmp/kobo-watch.XXXXXX)
chmod 755 "$work" # the embedded PostgreSQL runs as the postgres user when started as root
head_pid="" base_pid=""
stop_service() { # PID
  [ -n "$1" ] || return 0
  kill -TERM "$1" 2>/dev/null || return 0
  for _ in $(seq 1 30); do kill -0 "$1" 2>/dev/null || return 0; sleep 1; done
  kill -KILL "$1" 2>/dev/null || true
}
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_service "$base_pid"
  stop_service "$head_pid"
  # The embedded PostgreSQL stops with the service that started it; make sure it did.
  if [ -f "$work/postgres/postmaster.pid" ]; then
    runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$work/postgres" stop -m fast >/dev/null 2>&1 ||
      "/usr/lib/postgresql/15/bin/pg_ctl" -D "$work/postgres" stop -m fast >/dev/null 2>&1 || true
  fi
  for tree in "$work/base" "$work/head"; do
    [ ! -d "$tree" ] || git worktree remove --force "$tree" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- builds -------------------------------------------------------------------------------------------
build() { # NAME SHA
  progress "building $1 ($(git log -1 --format='%h %s' "$2" | cut -c1-80))"
  git worktree add --detach "$work/$1" "$2" >/dev/null 2>&1 || { echo "cannot check out $2" >&2; exit 2; }
  if ! (cd "$work/$1" && timeout 900 dotnet build src/SyncApi -c Release -v q -nologo >"$work/$1-build.log" 2>&1); then
    grep -E " error |rror\(s\)" "$work/$1-build.log" >&2 || tail -20 "$work/$1-build.log" >&2
    echo "the build of $1 ($2) failed" >&2
    exit 2
  fi
}
build head "$head_sha"
build base "$base_sha"
dll() { echo "$work/$1/src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll"; }

# --- services -----------------------------------------------------------------------------------------
export ASPNETCORE_ENVIRONMENT=Production
export Auth__SigningKey=bench-signing-key-that-is-at-least-32-bytes
export Paging__CursorKey=bench-cursor-key-that-is-at-least-32-bytes-long
export AUTH_SIGNING_KEY="$Auth__SigningKey"
# The same Kobo content settings for both: left alone, the build that seeds the demo data on its embedded
# server also serves the demo's book files and names them in every entitlement, and the other does not,
# which alone makes a Kobo page of one build about 4 % heavier than the other's.
export Kobo__DemoContent=true
wait_ready() { # NAME URL PID
  for _ in $(seq 1 240); do
    curl -fsS -o /dev/null "$2/healthz/ready" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || break
    sleep 1
  done
  echo "the $1 build did not become ready at $2; its log:" >&2
  tail -20 "$work/$1-service.log" >&2
  exit 2
}
progress "starting the HEAD build on $head_url (embedded PostgreSQL on port $pg_port, demo data, data in $work)"
Storage__Embedded__Enabled=true Storage__Embedded__DataDirectory="$work/postgres" Storage__Embedded__Port="$pg_port" \
  Endpoints__Rest="$head_url" Endpoints__Grpc="http://127.0.0.1:$((port + 1))" Kobo__PublicBaseUrl="$head_url" \
  timeout 7200 dotnet "$(dll head)" >"$work/head-service.log" 2>&1 &
head_pid=$!
wait_ready head "$head_url" "$head_pid"
password=$(cat "$work/postgres/kobo-sync.password")
pg="host=127.0.0.1 port=$pg_port dbname=kobo_sync user=kobo password=$password"
# The database's statements, WAL and write transactions per request, beside the CPU (lib.sh's bench_measure).
export BENCH_PG="$pg"
progress "starting the BASE build on $base_url, same database"
Demo__Seed=false Storage__ConnectionString="Host=127.0.0.1;Port=$pg_port;Database=kobo_sync;Username=kobo;Password=$password" \
  Endpoints__Rest="$base_url" Endpoints__Grpc="http://127.0.0.1:$((port + 3))" Kobo__PublicBaseUrl="$base_url" \
  timeout 7200 dotnet "$(dll base)" >"$work/base-service.log" 2>&1 &
base_pid=$!
wait_ready base "$base_url" "$base_pid"
postmaster=$(head -1 "$work/postgres/postmaster.pid")
# The services' own pids (timeout's children), whose CPU is measured.
head_service=$(bench_listener "$port") base_service=$(bench_listener "$((port + 2))")
if [ -z "$head_service" ] || [ -z "$base_service" ] || [ -z "$postmaster" ]; then
  echo "cannot find the services' processes" >&2
  exit 2
fi

# --- loads --------------------------------------------------------------------------------------------
progress "minting device tokens"
users=$(bench_mint_tokens "$pg" "$work/tokens.tsv" "$(dll head)")
progress "$users users"
BENCH_DLL="$(dll head)"
export BENCH_DLL
for figure in $figures; do bench_prepare_mode "$figure" "$pg" "$head_url" "$work"; done

connections_of() {
  case "$1" in push) echo "$BENCH_PUSH_CONNECTIONS" ;; kobo) echo "$BENCH_KOBO_CONNECTIONS" ;; *) echo 32 ;; esac
}
measure() { # FIGURE BUILD SECONDS -> the line of bench_measure
  local url=$head_url pid=$head_service
  [ "$2" = head ] || { url=$base_url; pid=$base_service; }
  # A round takes longer than the Kobo link cache's lifetime (a minute): one unrecorded second first
  # brings the links back into it, so that the measured page is the page, not the link's look-up.
  [ "$1" != kobo ] || bench_wrk_mode kobo "$url" 1 "$BENCH_KOBO_CONNECTIONS" "$work/tokens.tsv" "$work/kobo-rewarm.out" 2>/dev/null
  # The push load changes every user's highlights: the sync load's tokens are caught up again first
  # (unrecorded), so that its syncs find nothing new.
  [ "$1" != sync ] || bench_sync_tokens "$url" "$work/tokens.tsv" "$work/sync-tokens.tsv" >/dev/null
  bench_measure "$1" "$url" "$pid" "$postmaster" "$3" "$(connections_of "$1")" "$work"
}

for figure in $figures; do
  for build in base head; do
    progress "warm-up: $figure on $build ($warmup s, unrecorded)"
    line=$(measure "$figure" "$build" "$warmup" 2>/dev/null)
  done
done

results="$work/results.tsv"
: >"$results"
for round in $(seq 1 "$rounds"); do
  for figure in $figures; do
    for build in base head; do
      line=$(measure "$figure" "$build" "$seconds")
      read -r rps svc bytes pgcpu _wrk n applied non2xx statements wal xacts <<<"$line"
      progress "round $round/$rounds $figure $build: $rps req/s, $svc µs CPU and $bytes bytes per request, $non2xx non-2xx"
      # A load the service refused in part measures something else: more than 1% non-2xx stops the watch.
      if [ $(( non2xx * 100 )) -gt "$n" ]; then
        echo "$figure on $build: $non2xx of $n answers were not 2xx; the figures would not be the request's" >&2
        exit 2
      fi
      if [ "$figure" = push ] && [ "$applied" -lt $(( n * BENCH_PUSH_CHANGES )) ]; then
        echo "push on $build: $applied changes applied for $n requests of $BENCH_PUSH_CHANGES" >&2
        exit 2
      fi
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$figure" "$build" "$round" "$svc" "$bytes" "$rps" \
        "$pgcpu" "${statements:--}" "${wal:--}" "${xacts:--}" >>"$results"
    done
  done
done

# --- report -------------------------------------------------------------------------------------------
machine="$(nproc) cores $(uname -m)"
date_now=$(date -u +%Y-%m-%dT%H:%MZ)
median_of() { # FIGURE BUILD COLUMN [PRINTF-FORMAT]
  awk -F'\t' -v f="$1" -v b="$2" -v c="$3" '$1 == f && $2 == b && $c != "-" {print $c}' "$results" |
    sort -g | awk -v fmt="${4:-%.1f}" '{a[NR] = $1} END {if (NR == 0) printf "-"; else if (NR % 2) printf fmt, a[(NR + 1) / 2]; else printf fmt, (a[NR / 2] + a[NR / 2 + 1]) / 2}'
}
change() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == 0) print "-"; else printf "%+.1f", (b - a) / a * 100}'; }
over() { awk -v c="$1" -v t="$2" 'BEGIN {exit !(c != "-" && c + 0 > t + 0)}'; }

echo
echo "# Performance watch, $date_now"
echo
echo "Machine: $machine, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; $rounds rounds of ${seconds} s per figure and build, alternating BASE HEAD, after ${warmup} s of warm-up each."
echo "BASE: $(git log -1 --format='%h %s' "$base_sha" | cut -c1-100)"
echo "HEAD: $(git log -1 --format='%h %s' "$head_sha" | cut -c1-100)"
echo "Bytes: managed bytes allocated per request (median of rounds; limit +$max_bytes% or +$max_bytes_abs bytes). CPU: the service's CPU per request, µs (median of rounds; limit +$max_cpu%)."
echo
echo "| figure | bytes BASE | bytes HEAD | change % | CPU µs BASE | CPU µs HEAD | change % |"
echo "|---|---|---|---|---|---|---|"
regressions=()
head_rows=() base_rows=()
for figure in $figures; do
  bb=$(median_of "$figure" base 5) bh=$(median_of "$figure" head 5)
  cb=$(median_of "$figure" base 4) ch=$(median_of "$figure" head 4)
  db=$(change "$bb" "$bh") dc=$(change "$cb" "$ch")
  echo "| $figure | $bb | $bh | $db | $cb | $ch | $dc |"
  if over "$db" "$max_bytes" || over "$(awk -v a="$bb" -v b="$bh" 'BEGIN {printf "%.1f", b - a}')" "$max_bytes_abs"; then
    regressions+=("$figure: bytes per request $bb -> $bh ($db%, limit +$max_bytes% or +$max_bytes_abs bytes)")
  fi
  if over "$dc" "$max_cpu"; then regressions+=("$figure: CPU µs per request $cb -> $ch ($dc%, limit +$max_cpu%)"); fi
  head_rows+=("$date_now	${head_sha:0:12}	$figure	$bh	$ch	$machine	$rounds")
  base_rows+=("$date_now	${base_sha:0:12}	$figure	$bb	$cb	$machine	$rounds")
done
echo
echo "The database, per request (median of rounds): PostgreSQL's CPU (µs), statements (pg_stat_statements), WAL bytes and write transactions (transaction ids taken)."
echo
echo "| figure | PG CPU µs BASE | HEAD | statements BASE | HEAD | WAL bytes BASE | HEAD | write transactions BASE | HEAD |"
echo "|---|---|---|---|---|---|---|---|---|"
for figure in $figures; do
  echo "| $figure | $(median_of "$figure" base 7) | $(median_of "$figure" head 7) | $(median_of "$figure" base 8 %.2f) | $(median_of "$figure" head 8 %.2f)" \
    "| $(median_of "$figure" base 9) | $(median_of "$figure" head 9) | $(median_of "$figure" base 10 %.3f) | $(median_of "$figure" head 10 %.3f) |"
done
echo

if [ -n "$history" ]; then
  [ -s "$history" ] || printf 'date\tcommit\tfigure\tbytes_per_request\tcpu_us_per_request\tmachine\trounds\n' >"$history"
  # BASE's rows go in only while the history has none of that commit's (its first measurement), so
  # that every row of a commit is one run's.
  if [ "$base_sha" != "$head_sha" ] && ! awk -F'\t' -v c="${base_sha:0:12}" '$2 == c {found = 1} END {exit !found}' "$history"; then
    printf '%s\n' "${base_rows[@]}" >>"$history"
  fi
  printf '%s\n' "${head_rows[@]}" >>"$history"
  /usr/bin/python3 load/bench/watch_plot.py "$history" "${history%.tsv}.svg"
  echo "History: $history (plot: ${history%.tsv}.svg)"
fi
progress "done in $(( $(date -u +%s) - started )) s"

if [ ${#regressions[@]} -gt 0 ]; then
  echo "REGRESSION against BASE ${base_sha:0:12}:"
  printf '  %s\n' "${regressions[@]}"
  exit 1
fi
echo "No regression against BASE ${base_sha:0:12}."
