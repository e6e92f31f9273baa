#!/usr/bin/env bash
# Two SyncApi instances behind HAProxy on loopback, and a rolling upgrade of them.
#
#   rolling.sh up            start both instances on the shared database, render the HAProxy config,
#                            start HAProxy, wait until both servers are UP in it; print the front address
#   rolling.sh roll [--hard] upgrade the instances one at a time (below); print per instance the seconds
#                            it was out of rotation. --hard does it wrongly on purpose: SIGKILL, no drain
#   rolling.sh state N drain|maint|ready
#                            set server sN through HAProxy's runtime API (ready: and wait until it is UP)
#   rolling.sh status        the servers as HAProxy sees them (state, sessions, retries, redispatches)
#   rolling.sh down          stop HAProxy and both instances
#   rolling.sh help | --help this usage
#
# A command or an argument not listed here is refused (this usage on standard error, exit 2) before
# anything runs.
#
# One instance's upgrade: set it to drain in HAProxy (no new requests; those in flight go on), wait
# until HAProxy counts no session on it or KOBO_HAPROXY_DRAIN_SECONDS pass, SIGTERM (the service answers
# every held live pull at once, so those devices ask again and land on the other instance, lets the
# requests in flight finish, and exits within Resilience:ShutdownDrainMs), start it again, wait until its
# /healthz/ready answers 200, set it back to ready and wait until HAProxy's own health check has it UP.
# "Again" is the same build: this script restarts KOBO_SYNCAPI_DLL; a real upgrade points it at the new
# build between two instances (both versions then serve side by side for a while).
#
# Settings (environment):
#   Storage__ConnectionString  required: the database both instances share (neither may own it, so
#                              the service's embedded PostgreSQL is not used)
#   Auth__SigningKey, Paging__CursorKey, and any other service setting: passed on to both instances
#   Storage__Instances         how many instances share the database, default 2 (an upgrade stops one
#                              before it starts it again): each sizes its pools to its share of the
#                              server's max_connections
#   Proxies__TrustedNetworks__0 the balancer the instances believe X-Forwarded-For from, default
#                              127.0.0.1 (HAProxy here, on loopback)
#   KOBO_SYNCAPI_DLL           default src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll
#   KOBO_HAPROXY_DIR           run directory (config, pids, logs), default /tmp/kobo-sync-haproxy
#   KOBO_HAPROXY_PORT          the front (REST), default 6300
#   KOBO_HAPROXY_ADMIN_PORT    the runtime API, default 6301
#   KOBO_SYNCAPI_REST_PORTS    the instances' REST ports, default "6311 6312"
#   KOBO_SYNCAPI_GRPC_PORTS    the instances' gRPC ports, default "6321 6322"
#   KOBO_HAPROXY_DRAIN_SECONDS how long to wait for a drained instance's sessions to end, default 10
#                              (held live pulls end only at SIGTERM or their wait, up to 60 s: no need to wait for them)
#   KOBO_SYNCAPI_STOP_SECONDS  how long SIGTERM may take before SIGKILL, default 35 (above ShutdownDrainMs, 25 s)
#   KOBO_SYNCAPI_START_SECONDS how long a start may take to be ready, default 90
set -euo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
DIR="${KOBO_HAPROXY_DIR:-/tmp/kobo-sync-haproxy}"
DLL="${KOBO_SYNCAPI_DLL:-$ROOT/src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll}"
FRONT_PORT="${KOBO_HAPROXY_PORT:-6300}"
ADMIN_PORT="${KOBO_HAPROXY_ADMIN_PORT:-6301}"
read -r -a REST_PORTS <<< "${KOBO_SYNCAPI_REST_PORTS:-6311 6312}"
read -r -a GRPC_PORTS <<< "${KOBO_SYNCAPI_GRPC_PORTS:-6321 6322}"
DRAIN_SECONDS="${KOBO_HAPROXY_DRAIN_SECONDS:-10}"
STOP_SECONDS="${KOBO_SYNCAPI_STOP_SECONDS:-35}"
START_SECONDS="${KOBO_SYNCAPI_START_SECONDS:-90}"
BACKEND=syncapi
case "$DIR" in /*) ;; *) DIR="$PWD/$DIR" ;; esac
case "$DLL" in /*) ;; *) DLL="$PWD/$DLL" ;; esac
INSTANCES=(1 2)

# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
# A command line this script does not take: what is wrong, then the usage, on standard error.
usage_error() { { echo "rolling.sh: $*"; usage; } >&2; exit 2; }
log() { printf '%s %s\n' "$(date -u +%H:%M:%S.%3N)" "$*" >&2; }
die() { log "error: $*"; exit 1; }
now() { date +%s.%N; }
seconds_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }

# One command to HAProxy's runtime API (loopback TCP; bash's /dev/tcp, no socat needed).
admin() {
  local reply
  exec 3<>"/dev/tcp/127.0.0.1/$ADMIN_PORT" || die "HAProxy's runtime API does not answer on 127.0.0.1:$ADMIN_PORT"
  printf '%s\n' "$1" >&3
  reply="$(cat <&3)"
  exec 3<&-
  printf '%s\n' "$reply"
}

# A field of server sN's line in `show stat` (5 scur, 16 wretr, 17 wredis, 18 status).
stat_field() {
  admin "show stat" | awk -F, -v be="$BACKEND" -v sv="s$1" -v f="$2" '$1 == be && $2 == sv { print $f }'
}

pid_of() { cat "$DIR/instance$1.pid" 2>/dev/null || true; }
# Alive and not a zombie: the instances outlive the script that started them, and whoever inherits
# them (PID 1 in a container) may be slow to reap them.
alive() { kill -0 "$1" 2>/dev/null && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
running() { local pid; pid="$(pid_of "$1")"; [ -n "$pid" ] && alive "$pid"; }

start_instance() {
  local n="$1" i=$(($1 - 1))
  [ -f "$DLL" ] || die "no service build at $DLL (dotnet build -c Release, or set KOBO_SYNCAPI_DLL)"
  # From the build's directory: its appsettings.json is the one read, as in the container.
  cd "$(dirname "$DLL")"
  ASPNETCORE_ENVIRONMENT="${ASPNETCORE_ENVIRONMENT:-Production}" \
  Demo__Seed="${Demo__Seed:-false}" \
  Storage__Instances="${Storage__Instances:-${#INSTANCES[@]}}" \
  Proxies__TrustedNetworks__0="${Proxies__TrustedNetworks__0:-127.0.0.1}" \
  Endpoints__Rest="http://127.0.0.1:${REST_PORTS[$i]}" \
  Endpoints__Grpc="http://127.0.0.1:${GRPC_PORTS[$i]}" \
    nohup dotnet "$DLL" >> "$DIR/instance$n.log" 2>&1 < /dev/null &
  echo $! > "$DIR/instance$n.pid"
  cd - > /dev/null
}

wait_ready() {
  local n="$1" i=$(($1 - 1)) started
  started="$(now)"
  until [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:${REST_PORTS[$i]}/healthz/ready" || true)" = 200 ]; do
    running "$n" || die "instance $n exited; its log: $DIR/instance$n.log"
    awk -v s="$(seconds_since "$started")" -v l="$START_SECONDS" 'BEGIN { exit !(s > l) }' \
      && die "instance $n not ready within $START_SECONDS s; its log: $DIR/instance$n.log"
    sleep 0.2
  done
}

# Until HAProxy's own health check has sN UP (status "UP" or "DRAIN": checked and passing).
wait_up_in_haproxy() {
  local n="$1" started status
  started="$(now)"
  while :; do
    status="$(stat_field "$n" 18)"
    case "$status" in UP | DRAIN) return 0 ;; esac
    awk -v s="$(seconds_since "$started")" 'BEGIN { exit !(s > 30) }' && die "s$n is $status in HAProxy after 30 s"
    sleep 0.2
  done
}

stop_instance() {
  local n="$1" signal="${2:-TERM}" pid started
  pid="$(pid_of "$n")"
  [ -n "$pid" ] || return 0
  started="$(now)"
  kill -s "$signal" "$pid" 2>/dev/null || true
  while alive "$pid"; do
    if awk -v s="$(seconds_since "$started")" -v l="$STOP_SECONDS" 'BEGIN { exit !(s > l) }'; then
      log "instance $n still runs $STOP_SECONDS s after SIG$signal: SIGKILL"
      kill -s KILL "$pid" 2>/dev/null || true
    fi
    sleep 0.1
  done
  rm -f "$DIR/instance$n.pid"
}

render_config() {
  sed -e "s|@RUN_DIR@|$DIR|g" -e "s|@ADMIN_PORT@|$ADMIN_PORT|g" -e "s|@FRONT_PORT@|$FRONT_PORT|g" \
      -e "s|@REST_PORT_1@|${REST_PORTS[0]}|g" -e "s|@REST_PORT_2@|${REST_PORTS[1]}|g" \
      "$HERE/haproxy.cfg.template" > "$DIR/haproxy.cfg"
  haproxy -c -q -f "$DIR/haproxy.cfg" || die "HAProxy refuses $DIR/haproxy.cfg"
}

up() {
  command -v haproxy >/dev/null 2>&1 || die "haproxy is not installed (apt-get install -y haproxy)"
  [ -n "${Storage__ConnectionString:-}" ] || die "set Storage__ConnectionString to the database both instances share"
  mkdir -p "$DIR"
  local n
  for n in "${INSTANCES[@]}"; do
    running "$n" || start_instance "$n"
  done
  for n in "${INSTANCES[@]}"; do
    wait_ready "$n"
  done
  render_config
  if ! { [ -f "$DIR/haproxy.pid" ] && kill -0 "$(cat "$DIR/haproxy.pid")" 2>/dev/null; }; then
    haproxy -D -f "$DIR/haproxy.cfg" > "$DIR/haproxy.log" 2>&1 < /dev/null \
      || die "HAProxy did not start: $(cat "$DIR/haproxy.log")"
  fi
  for n in "${INSTANCES[@]}"; do
    wait_up_in_haproxy "$n"
  done
  log "both instances UP behind HAProxy"
  echo "front=http://127.0.0.1:$FRONT_PORT"
}

roll() {
  local hard="${1:-}" n started phase sessions drained stopped ready
  for n in "${INSTANCES[@]}"; do
    started="$(now)"
    if [ "$hard" = --hard ]; then
      log "s$n: SIGKILL without draining"
      stop_instance "$n" KILL
      drained=0.0
    else
      admin "set server $BACKEND/s$n state drain" > /dev/null
      log "s$n: drain"
      phase="$(now)"
      while :; do
        sessions="$(stat_field "$n" 5)"
        [ "${sessions:-0}" = 0 ] && break
        if awk -v s="$(seconds_since "$phase")" -v l="$DRAIN_SECONDS" 'BEGIN { exit !(s > l) }'; then
          log "s$n: $sessions sessions left after $DRAIN_SECONDS s (held live pulls end at SIGTERM)"
          break
        fi
        sleep 0.2
      done
      drained="$(seconds_since "$phase")"
      log "s$n: SIGTERM"
      stop_instance "$n" TERM
    fi
    stopped="$(seconds_since "$started")"
    log "s$n: stopped; starting the build again (same build standing in for the new one)"
    start_instance "$n"
    wait_ready "$n"
    ready="$(seconds_since "$started")"
    admin "set server $BACKEND/s$n state ready" > /dev/null
    wait_up_in_haproxy "$n"
    echo "instance $n: out of rotation $(seconds_since "$started") s (drain $drained s, stopped at $stopped s, ready at $ready s)"
  done
}

status() {
  admin "show stat" | awk -F, -v be="$BACKEND" '$1 == be && $2 != "BACKEND" { printf "%s %s sessions=%s total=%s retries=%s redispatches=%s\n", $2, $18, $5, $8, $16, $17 }'
}

down() {
  local n
  if [ -f "$DIR/haproxy.pid" ]; then
    kill "$(cat "$DIR/haproxy.pid")" 2>/dev/null || true
    rm -f "$DIR/haproxy.pid"
  fi
  for n in "${INSTANCES[@]}"; do
    stop_instance "$n" TERM
  done
}

# The command line, checked before anything runs: --help anywhere prints the usage.
for arg in "$@"; do case "$arg" in -h|--help) usage; exit 0 ;; esac; done
case "${1:-}" in
  up|status|down) [ $# -eq 1 ] || usage_error "$1 takes no argument: ${*:2}" ;;
  roll) [ $# -eq 1 ] || { [ $# -eq 2 ] && [ "$2" = --hard ]; } || usage_error "roll takes only --hard: ${*:2}" ;;
  state)
    { [ $# -eq 3 ] && [[ "$2" =~ ^[12]$ && "$3" =~ ^(drain|maint|ready)$ ]]; } ||
      usage_error "state takes 1|2 drain|maint|ready: ${*:2}" ;;
  help) usage; exit 0 ;;
  "") usage_error "no command given" ;;
  -*) usage_error "unknown option $1" ;;
  *) usage_error "unknown command $1" ;;
esac

case "$1" in
  up) up ;;
  roll) roll "${2:-}" ;;
  state)
    admin "set server $BACKEND/s$2 state $3" > /dev/null
    if [ "$3" = ready ]; then wait_up_in_haproxy "$2"; fi
    ;;
  status) status ;;
  down) down ;;
esac
