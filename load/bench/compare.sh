#!/usr/bin/env bash
# Service vs raw database, same box, same run: wrk against the REST reads and pgbench
# (-M prepared) running the service's own SQL, alternating A B A B, then medians and ratios.
#
#   load/bench/compare.sh --pg "host=127.0.0.1 port=5433 dbname=kobo_sync user=kobo password=..." \
#       [--url http://127.0.0.1:5080] [--rounds 3] [--seconds 15] [--warmup 20] [--connections 32]
#       [--reads "user highlights"] [--also http://127.0.0.1:5090 --also-label "coalescing off"] [--bare | --bare-multiplexing]
#
# --reads takes any of user, highlights and book (the reads pgbench has the SQL of).
# --also measures a second service instance (another build or configuration on the same database)
# in the same rounds, A B C A B C, so a change is judged against its alternative under the same noise.
# --bare makes the second instance load/bench/bare, started here on 127.0.0.1:5070 and stopped at the
# end: the same reads with nothing but ASP.NET Core and Npgsql, the floor the framework leaves.
# --bare-multiplexing runs it with Npgsql's multiplexing on (which the service cannot use: see
# docs/performance-history.md).
#
# The service must be running against that database with the signing key in $AUTH_SIGNING_KEY
# (tokens are minted with it, one per user). Targets loopback only; every run is bounded by
# --seconds and stops by itself. Results: load/results/compare-<time>.md (git-ignored).
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

url=http://127.0.0.1:5080 pg="" rounds=3 seconds=15 warmup=20 connections=32 reads="user highlights"
also="" also_label="second instance" bare="" bare_settings=""
while [ $# -gt 0 ]; do
  case "$1" in
    --url) url="$2"; shift 2 ;;
    --pg) pg="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --warmup) warmup="$2"; shift 2 ;;
    --also) also="$2"; shift 2 ;;
    --also-label) also_label="$2"; shift 2 ;;
    --bare) bare=1; also=http://127.0.0.1:5070; also_label="bare ASP.NET Core + Npgsql (load/bench/bare)"; shift ;;
    --bare-multiplexing) bare=1; bare_settings="Multiplexing=true"; also=http://127.0.0.1:5070
      also_label="bare ASP.NET Core + Npgsql with multiplexing (load/bench/bare)"; shift ;;
    --connections) connections="$2"; shift 2 ;;
    --reads) reads="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$pg" ] || { echo "--pg \"host=... port=... dbname=... user=... password=...\" is required" >&2; exit 2; }
for target in "$url" ${also:+"$also"}; do bench_require_loopback "$target"; done
for tool in wrk pgbench psql dotnet; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install wrk postgresql-client)" >&2; exit 2; }; done

mkdir -p load/results
stamp=$(date -u +%Y%m%dT%H%M%SZ)
work=$(mktemp -d)
bare_pid=""
trap '[ -z "$bare_pid" ] || kill "$bare_pid" 2>/dev/null; rm -rf "$work"' EXIT
report="load/results/compare-$stamp.md"

echo "==> minting device tokens"
users=$(bench_mint_tokens "$pg" "$work/tokens.tsv")
for read in $reads; do bench_prepare_mode "$read" "$pg" "$url" "$work"; done
if [ -n "$bare" ]; then
  echo "==> starting the bare reference app at $also"
  bare_pid=$(bench_start_bare "$pg" "$also" "$work/bare.log" "$bare_settings") && [ -n "$bare_pid" ] || exit 2
fi

run_wrk() { # read [url] [seconds] -> "rps p99ms"
  bench_wrk_mode "$1" "${2:-$url}" "${3:-$seconds}" "$connections" "$work/tokens.tsv" "$work/wrk.out"
  awk '/^Requests\/sec/ {rps=$2}
       /^ +99%/ {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; p99=v}
       END {printf "%.0f %.2f\n", rps, p99}' "$work/wrk.out"
}

run_pgbench() { # read -> "tps avgms"
  bench_pgbench "$1" "$pg" "$seconds" "$connections" "$users" "$work/pgbench.out"
  awk '/^tps/ {tps=$3} /^latency average/ {lat=$4} END {printf "%.0f %.2f\n", tps, lat}' "$work/pgbench.out"
}

median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else printf "%.2f\n", (a[NR/2]+a[NR/2+1])/2}'; }

{
  echo "# Service vs PostgreSQL, $stamp"
  echo
  [ -z "$also" ] || echo "Second instance ($also_label): $also, measured in the same rounds right after the first."
  echo
  echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(uname -m); $connections connections; $rounds rounds of ${seconds}s each, alternating."
  echo
  echo "| read | round | service req/s | service p99 ms | pgbench tps | pgbench avg ms | second req/s | second p99 ms |"
  echo "|---|---|---|---|---|---|---|---|"
} >"$report"

for read in $reads; do
  # Unrecorded warm-up: the first requests of each device validate its token and the JIT is still tiering up.
  echo "==> $read warm-up (${warmup}s per instance)"
  run_wrk "$read" "$url" "$warmup" >/dev/null
  [ -z "$also" ] || run_wrk "$read" "$also" "$warmup" >/dev/null
  : >"$work/$read.svc"; : >"$work/$read.db"; : >"$work/$read.also"
  for round in $(seq 1 "$rounds"); do
    echo "==> $read round $round: wrk"
    svc=$(run_wrk "$read")
    second="- -"
    if [ -n "$also" ]; then
      echo "==> $read round $round: wrk, second instance"
      second=$(run_wrk "$read" "$also")
      echo "$second" >>"$work/$read.also"
    fi
    echo "==> $read round $round: pgbench"
    db=$(run_pgbench "$read")
    echo "$svc" >>"$work/$read.svc"; echo "$db" >>"$work/$read.db"
    echo "| $read | $round | ${svc% *} | ${svc#* } | ${db% *} | ${db#* } | ${second% *} | ${second#* } |" >>"$report"
  done
done

{
  echo
  echo "| read | median service req/s | median p99 ms | median pgbench tps | ratio service/pgbench | second: median req/s | second: ratio |"
  echo "|---|---|---|---|---|---|---|"
  for read in $reads; do
    s=$(cut -d' ' -f1 "$work/$read.svc" | median)
    p=$(cut -d' ' -f2 "$work/$read.svc" | median)
    d=$(cut -d' ' -f1 "$work/$read.db" | median)
    a="-" ar="-"
    if [ -n "$also" ]; then
      a=$(cut -d' ' -f1 "$work/$read.also" | median)
      ar=$(awk -v s="$a" -v d="$d" 'BEGIN {printf "%.2f", s/d}')
    fi
    echo "| $read | $s | $p | $d | $(awk -v s="$s" -v d="$d" 'BEGIN {printf "%.2f", s/d}') | $a | $ar |"
  done
} >>"$report"
cat "$report"
