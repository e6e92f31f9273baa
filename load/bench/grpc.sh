#!/usr/bin/env bash
# gRPC GetUser under h2load (Debian nghttp2-client), against one or more service instances in the
# same rounds (A B A B ...), so a build is judged against another under the same noise: requests per
# second, p50 / p99 latency from h2load's per-request log, the service's CPU per request and its
# managed bytes allocated per request (from the instance's REST /metrics).
#
#   load/bench/grpc.sh --pg "host=127.0.0.1 port=5433 dbname=kobo_sync user=kobo password=..." \
#       --target "new=http://127.0.0.1:5081,http://127.0.0.1:5080" \
#       [--target "old=http://127.0.0.1:5091,http://127.0.0.1:5090"] \
#       [--rounds 3] [--seconds 10] [--connections 4] [--streams 8] [--user 12]
#
# Every request reads the same user (h2load sends one body), with a token minted from
# $AUTH_SIGNING_KEY. Targets loopback only; every run is bounded by --seconds and stops by itself.
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

pg="" rounds=3 seconds=10 connections=4 streams=8 user=12 targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --pg) pg="$2"; shift 2 ;;
    --target) targets+=("$2"); shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --connections) connections="$2"; shift 2 ;;
    --streams) streams="$2"; shift 2 ;;
    --user) user="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
if [ -z "$pg" ] || [ "${#targets[@]}" -eq 0 ]; then
  echo "--pg and at least one --target LABEL=GRPC_URL,REST_URL are required" >&2
  exit 2
fi
for tool in h2load psql ss curl; do command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install nghttp2-client postgresql-client iproute2 curl)" >&2; exit 2; }; done

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bench_mint_tokens "$pg" "$work/tokens.tsv" >/dev/null
token=$(awk -v u="$user" '$1 == u {print $2}' "$work/tokens.tsv")
[ -n "$token" ] || { echo "no user $user in the database" >&2; exit 2; }
# One length-prefixed gRPC message: GetUserRequest { user_no = $user } (field 1, varint).
python3 -c "
import sys
n = $user; v = b''
while True:
    b = n & 0x7F; n >>= 7
    v += bytes([b | (0x80 if n else 0)])
    if not n: break
m = b'\x08' + v
sys.stdout.buffer.write(b'\x00' + len(m).to_bytes(4, 'big') + m)" >"$work/body.bin"

tick=$(getconf CLK_TCK)
# gRPC GetUser calls the instance answered OK so far (h2load sees HTTP 200 for every gRPC status).
answered_ok() {
  curl -fsS -H 'Accept: text/plain' "$1/metrics" 2>/dev/null |
    awk '/^kobo_sync_requests_total\{/ && /endpoint="GetUser"/ && /protocol="grpc"/ && /outcome="ok"/ {n += $NF} END {printf "%.0f", n}'
}

run() { # LABEL GRPC REST SECONDS -> "req/s p50_ms p99_ms cpu_us bytes"
  local grpc="$2" rest="$3" pid s0 a0 a1 k0 n ok bytes=-
  bench_require_loopback "$grpc"
  pid=$(bench_listener "$(bench_port_of "$grpc")")
  [ -n "$pid" ] || { echo "no process listens at $grpc" >&2; exit 2; }
  rm -f "$work/log" # h2load appends to its log
  a0=$(bench_allocated "$rest"); k0=$(answered_ok "$rest"); s0=$(bench_own_ticks "$pid")
  h2load -D "$4" -c "$connections" -m "$streams" -d "$work/body.bin" --log-file "$work/log" \
    -H 'content-type: application/grpc' -H 'te: trailers' -H "authorization: Bearer $token" \
    "$grpc/kobo.sync.v1.SyncService/GetUser" >"$work/h2load.out" 2>&1
  a1=$(bench_allocated "$rest")
  n=$(awk '$2 == 200' "$work/log" | wc -l)
  ok=$(( $(answered_ok "$rest") - k0 ))
  if [ "$n" -eq 0 ] || [ $(( ok * 100 )) -lt $(( n * 99 )) ]; then
    echo "$1: only $ok of $n calls were answered OK (is a per-device rate limit in the way? see docs/performance-history.md):" >&2
    cat "$work/h2load.out" >&2
    exit 2
  fi
  [ -z "$a0" ] || [ -z "$a1" ] || bytes=$(( (a1 - a0) / n ))
  awk '$2 == 200 {print $3}' "$work/log" | sort -n >"$work/sorted"
  echo "$(awk -v s="$4" -v n="$n" 'BEGIN {printf "%.0f", n / s}') \
$(awk -v n="$n" 'NR == int(n * 0.50) + 1 {printf "%.2f", $1 / 1000}' "$work/sorted") \
$(awk -v n="$n" 'NR == int(n * 0.99) + 1 {printf "%.2f", $1 / 1000}' "$work/sorted") \
$(awk -v d="$(( $(bench_own_ticks "$pid") - s0 ))" -v t="$tick" -v n="$n" 'BEGIN {printf "%.1f", d / t * 1e6 / n}') $bytes"
}

echo "==> warm-up ($seconds s each, unrecorded)" >&2
for target in "${targets[@]}"; do
  IFS=, read -r grpc rest <<<"${target#*=}"
  run "${target%%=*}" "$grpc" "$rest" "$seconds" >/dev/null
done
echo "Machine: $(nproc) cores, $(uname -m); h2load $connections connections x $streams streams; gRPC GetUser of user $user; CPU in microseconds per request"
echo
echo "| round | instance | req/s | p50 ms | p99 ms | service CPU | bytes allocated |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$rounds"); do
  for target in "${targets[@]}"; do
    IFS=, read -r grpc rest <<<"${target#*=}"
    read -r rps p50 p99 cpu bytes <<<"$(run "${target%%=*}" "$grpc" "$rest" "$seconds")"
    echo "| $round | ${target%%=*} | $rps | $p50 | $p99 | $cpu | $bytes |"
  done
done
