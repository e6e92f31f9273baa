#!/usr/bin/env bash
# Prometheus exporters beside each node of the local 3-node cluster (cluster.sh), for the dashboard's
# database panels and the alerts of deploy/alerts.
#
#   exporters.sh up        install what is missing (as root), create the monitoring role on the leader,
#                          start a postgres exporter and a node exporter per node, wait until they answer
#   exporters.sh down      stop them (cluster.sh down does this too)
#   exporters.sh status    each exporter: its address and whether it answers
#   exporters.sh targets   the scrape targets, one job per line: JOB HOST:PORT HOST:PORT HOST:PORT
#   exporters.sh help | --help
#                          this usage
#
# A command or an argument not listed here is refused (this usage on standard error, exit 2) before
# anything runs.
#
# Per node N (0, 1, 2): prometheus-postgres-exporter on 127.0.0.1:(KOBO_CLUSTER_PG_EXPORTER_PORT + N),
# default 19187, connecting to that node's PostgreSQL as the role kobo_monitor (pg_monitor; password in
# the state directory's secrets/); prometheus-node-exporter on 127.0.0.1:(KOBO_CLUSTER_NODE_EXPORTER_PORT
# + N), default 19100, whose textfile collector reads KOBO_CLUSTER_TEXTFILE_DIR (default DIR/textfile,
# where the backup job writes kobo_sync_backup_last_success_timestamp_seconds). The cluster's own
# settings (KOBO_CLUSTER_DIR, KOBO_CLUSTER_PG_PORT) are read as cluster.sh reads them. As root the
# exporters run as `postgres`.
set -euo pipefail

DIR="${KOBO_CLUSTER_DIR:-/tmp/kobo-sync-cluster}"
PG_PORT="${KOBO_CLUSTER_PG_PORT:-15432}"
PG_EXPORTER_PORT="${KOBO_CLUSTER_PG_EXPORTER_PORT:-19187}"
NODE_EXPORTER_PORT="${KOBO_CLUSTER_NODE_EXPORTER_PORT:-19100}"
TEXTFILE_DIR="${KOBO_CLUSTER_TEXTFILE_DIR:-$DIR/textfile}"
NODES=(node1 node2 node3)
MONITOR_USER=kobo_monitor

# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
# A command line this script does not take: what is wrong, then the usage, on standard error.
usage_error() { { echo "exporters.sh: $*"; usage; } >&2; exit 2; }
say() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { say "error: $*"; exit 1; }

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

ensure_packages() {
  local missing=()
  command -v prometheus-postgres-exporter >/dev/null 2>&1 || missing+=(prometheus-postgres-exporter)
  command -v prometheus-node-exporter >/dev/null 2>&1 || missing+=(prometheus-node-exporter)
  command -v psql >/dev/null 2>&1 || missing+=(postgresql-client-15)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  [ "${#missing[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    die "missing: ${missing[*]}; install them (sudo apt-get install ${missing[*]}) or run this as root"
  fi
  say "installing ${missing[*]} (Debian packages)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
}

secret() {
  local file="$DIR/secrets/$1"
  if [ ! -s "$file" ]; then
    head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' >"$file"
  fi
  cat "$file"
}

# The node whose PostgreSQL is not in recovery.
leader_port() {
  local i port
  for i in 0 1 2; do
    port=$((PG_PORT + i))
    if [ "$(superuser_psql "$port" -tA -c 'SELECT pg_is_in_recovery()' 2>/dev/null)" = "f" ]; then
      echo "$port"
      return 0
    fi
  done
  return 1
}

superuser_psql() {
  local port="$1"; shift
  PGPASSWORD="$(cat "$DIR/secrets/superuser")" PGCONNECT_TIMEOUT=3 psql -X -q -v ON_ERROR_STOP=1 \
    -h 127.0.0.1 -p "$port" -U "$(cat "$DIR/secrets/superuser-name")" -d postgres "$@"
}

# A login role with pg_monitor, created (or its password reset) on the leader; standbys get it by replication.
create_monitor_role() {
  local port password
  port="$(leader_port)" || die "no leader: start the cluster first (cluster.sh up)"
  password="$(secret monitor)"
  superuser_psql "$port" -c "DO \$\$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$MONITOR_USER') THEN
        CREATE ROLE $MONITOR_USER LOGIN PASSWORD '$password' CONNECTION LIMIT 10;
      ELSE
        ALTER ROLE $MONITOR_USER PASSWORD '$password';
      END IF;
    END \$\$;
    GRANT pg_monitor TO $MONITOR_USER;"
}

# Starts a program detached, as the owner of the cluster's files, recording its pid; the environment
# file (secrets) is read by the child shell, so no password appears on a command line.
daemon() {
  local pidfile="$1" log="$2" envfile="$3"; shift 3
  : >>"$log"
  # shellcheck disable=SC2016 # expanded by the child shell: $0 is the environment file, $@ the program
  local run=(bash -c 'set -a; [ -z "$0" ] || . "$0"; set +a; exec "$@"' "$envfile" "$@")
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$log"
    [ -z "$envfile" ] || chown postgres:postgres "$envfile"
    setsid setpriv --reuid=postgres --regid=postgres --init-groups -- "${run[@]}" >>"$log" 2>&1 </dev/null &
  else
    setsid "${run[@]}" >>"$log" 2>&1 </dev/null &
  fi
  echo $! >"$pidfile"
}

stop_pidfile() {
  local pidfile="$1" what="$2"
  alive "$pidfile" || { rm -f "$pidfile"; return 0; }
  local pid; pid="$(cat "$pidfile")"
  say "stopping $what (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; return 0; }
    sleep 0.2
  done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

answers() { curl -fsS --max-time 5 -o /dev/null "http://127.0.0.1:$1/metrics" 2>/dev/null; }

start_exporters() {
  local i=0 node ed pg_exporter node_exporter
  for node in "${NODES[@]}"; do
    ed="$DIR/exporters/$node"
    mkdir -p "$ed" "$TEXTFILE_DIR"
    pg_exporter=$((PG_EXPORTER_PORT + i))
    node_exporter=$((NODE_EXPORTER_PORT + i))
    umask 077
    printf 'DATA_SOURCE_NAME=%s\n' "'host=127.0.0.1 port=$((PG_PORT + i)) user=$MONITOR_USER password=$(secret monitor) dbname=postgres sslmode=disable connect_timeout=3'" >"$ed/postgres-exporter.env"
    umask 022
    if [ "$(id -u)" -eq 0 ]; then chown postgres:postgres "$ed" "$TEXTFILE_DIR"; fi
    if ! alive "$ed/postgres-exporter.pid"; then
      say "starting $node's postgres exporter on 127.0.0.1:$pg_exporter"
      daemon "$ed/postgres-exporter.pid" "$ed/postgres-exporter.log" "$ed/postgres-exporter.env" \
        prometheus-postgres-exporter "--web.listen-address=127.0.0.1:$pg_exporter" --log.level=warn
    fi
    if ! alive "$ed/node-exporter.pid"; then
      say "starting $node's node exporter on 127.0.0.1:$node_exporter"
      daemon "$ed/node-exporter.pid" "$ed/node-exporter.log" "" \
        prometheus-node-exporter "--web.listen-address=127.0.0.1:$node_exporter" --log.level=warn \
        --collector.disable-defaults --collector.filesystem --collector.textfile \
        "--collector.textfile.directory=$TEXTFILE_DIR" --collector.cpu --collector.meminfo \
        --collector.loadavg --collector.diskstats
    fi
    i=$((i + 1))
  done
  for port in $(all_ports); do
    for _ in $(seq 1 100); do answers "$port" && break; sleep 0.2; done
    answers "$port" || die "the exporter on 127.0.0.1:$port does not answer (logs under $DIR/exporters)"
  done
}

all_ports() {
  local i
  for i in 0 1 2; do echo $((PG_EXPORTER_PORT + i)) $((NODE_EXPORTER_PORT + i)); done
}

cmd_up() {
  [ -d "$DIR/secrets" ] || die "no cluster in $DIR: run cluster.sh up first"
  ensure_packages
  create_monitor_role
  start_exporters
  cmd_targets
}

cmd_down() {
  local node
  for node in "${NODES[@]}"; do
    stop_pidfile "$DIR/exporters/$node/postgres-exporter.pid" "$node's postgres exporter"
    stop_pidfile "$DIR/exporters/$node/node-exporter.pid" "$node's node exporter"
  done
}

cmd_status() {
  local i=0 node port
  for node in "${NODES[@]}"; do
    for port in $((PG_EXPORTER_PORT + i)) $((NODE_EXPORTER_PORT + i)); do
      if answers "$port"; then echo "$node 127.0.0.1:$port answers"; else echo "$node 127.0.0.1:$port DOWN"; fi
    done
    i=$((i + 1))
  done
}

cmd_targets() {
  echo "postgres 127.0.0.1:$PG_EXPORTER_PORT 127.0.0.1:$((PG_EXPORTER_PORT + 1)) 127.0.0.1:$((PG_EXPORTER_PORT + 2))"
  echo "node 127.0.0.1:$NODE_EXPORTER_PORT 127.0.0.1:$((NODE_EXPORTER_PORT + 1)) 127.0.0.1:$((NODE_EXPORTER_PORT + 2))"
}

# The command line, checked before anything runs: --help anywhere prints the usage.
for arg in "$@"; do case "$arg" in -h|--help) usage; exit 0 ;; esac; done
case "${1:-}" in
  up|down|status|targets) [ $# -eq 1 ] || usage_error "$1 takes no argument: ${*:2}" ;;
  help) usage; exit 0 ;;
  "") usage_error "no command given" ;;
  -*) usage_error "unknown option $1" ;;
  *) usage_error "unknown command $1" ;;
esac

case "$1" in
  up) cmd_up ;;
  down) cmd_down ;;
  status) cmd_status ;;
  targets) cmd_targets ;;
esac
