#!/usr/bin/env bash
# A local 3-node PostgreSQL 15 cluster managed by Patroni, with etcd, all on loopback.
#
#   cluster.sh up                 install what is missing (as root), start etcd and three nodes, wait for
#                                 one leader and two replicas, create the database, print the connection strings
#   cluster.sh down [--purge]     stop the nodes and etcd (--purge also deletes the data)
#   cluster.sh status             the Patroni member list
#   cluster.sh kill-leader [--node]
#                                 kill -9 the leader's postmaster (Patroni fails over and rejoins it through
#                                 pg_rewind); --node kills the leader's Patroni too, as a lost machine
#                                 (bring it back with `restart NODE`)
#   cluster.sh restart NODE       stop (if running) and start node1, node2 or node3
#   cluster.sh switchover [--to NODE]
#                                 a planned switchover (Patroni REST POST /switchover) to NODE, by default the
#                                 synchronous standby; waits until NODE leads and the old leader streams from it
#   cluster.sh rolling-upgrade    each node in turn, replicas first and the leader last (moved away by switchover
#                                 first): stop it, upgrade it (here a restart stands in), start it, wait until it
#                                 streams again (lag <= 1 MiB) and the cluster is healthy; prints per node the
#                                 seconds from stop to serving again and fails if one took more than 60 s
#   cluster.sh strings            print the two connection strings again
#   cluster.sh backup [full|incr|diff]
#                                 a pgBackRest backup of the leader (default incr; the first one is made full),
#                                 expiry by the retention, the backup-age metric for node_exporter; prints its label
#   cluster.sh verify             pgbackrest verify: every backup file and archived WAL segment against its checksum
#   cluster.sh info [--output=json]
#                                 the repository's backups and WAL archive (pgbackrest info)
#   cluster.sh schedule           the cron entries for backups and verification (| crontab - to install)
#   cluster.sh restore --time T | --latest
#                                 every node's data deleted; node1 restored from the repository to time T
#                                 (PostgreSQL's format, e.g. '2026-11-29 10:41:07.250+00') or to the end of the
#                                 archived WAL, the others join it as replicas; prints "restored SECONDS s"
#   cluster.sh restore-drill [--service URL --token TOKEN --user N] [--after-backup 20] [--after-target 45] [--skip-latest]
#                                 backup under writes, ledger of acknowledged writes, restore to the latest point
#                                 (RPO) and to a time T (nothing after T, everything before), RTO of each; the
#                                 writes go on --after-backup seconds after the backup and --after-target after T
#   cluster.sh maintenance on|off Patroni's maintenance mode (patronictl pause / resume, waiting for every
#                                 node): Patroni changes nothing in PostgreSQL meanwhile (no failover, and a
#                                 standby's paused WAL replay stays paused, which Patroni resumes otherwise)
#   cluster.sh wait [SECONDS]     wait until one leader and two streaming replicas, at most SECONDS (default 120)
#   cluster.sh help | --help      this usage
#
# A command or an argument not listed here is refused (this usage on standard error, exit 2) before
# anything runs.
#
# Runs as root (PostgreSQL, Patroni and etcd then run as the `postgres` user) or as a normal user.
# Settings (environment): KOBO_CLUSTER_DIR (default /tmp/kobo-sync-cluster), KOBO_CLUSTER_PG_PORT
# (first node's PostgreSQL port, default 15432; the others follow), KOBO_CLUSTER_REST_PORT (first
# Patroni REST port, default 18008), KOBO_CLUSTER_ETCD_PORT (default 12379; the peer port is the next one),
# KOBO_CLUSTER_ARCHIVE_TIMEOUT (PostgreSQL's archive_timeout, default 30s), KOBO_CLUSTER_RETENTION_FULL
# (full backups kept, default 2), KOBO_CLUSTER_TEXTFILE_DIR (node_exporter textfile directory for the
# backup-age metric, default $KOBO_CLUSTER_DIR/textfile), KOBO_CLUSTER_RESTORE_LIMIT (seconds, default 1800),
# KOBO_CLUSTER_MAX_WAL_SIZE (max_wal_size of each node instead of large-data.conf's, with min_wal_size 256MB:
# for a large data set on a small disk).
set -euo pipefail

DIR="${KOBO_CLUSTER_DIR:-/tmp/kobo-sync-cluster}"
PG_PORT="${KOBO_CLUSTER_PG_PORT:-15432}"
REST_PORT="${KOBO_CLUSTER_REST_PORT:-18008}"
ETCD_PORT="${KOBO_CLUSTER_ETCD_PORT:-12379}"
ETCD_PEER_PORT=$((ETCD_PORT + 1))
NODES=(node1 node2 node3)
# A node is serving again once it streams from the leader with at most this lag (Patroni's own
# maximum_lag_on_failover) and the cluster is healthy; a rolling upgrade allows each node this long.
MAX_LAG_BYTES=1048576
MAX_DOWN_S=60
DATABASE=kobo_sync
APP_USER=kobo
HERE="$(cd "$(dirname "$0")" && pwd)"
# shellcheck source=../postgres/settings.sh
source "$HERE/../postgres/settings.sh"
# shellcheck source=backup.sh
source "$HERE/backup.sh"
# shellcheck source=drill.sh
source "$HERE/drill.sh"

# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
say() { printf '%s %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { say "error: $*"; exit 1; }
# A command line this script does not take: what is wrong, then the usage, on standard error.
usage_error() { { echo "cluster.sh: $*"; usage; } >&2; exit 2; }

node_index() {
  case "$1" in
    node1) echo 0 ;; node2) echo 1 ;; node3) echo 2 ;;
    *) die "unknown node '$1' (node1, node2 or node3)" ;;
  esac
}
pg_port_of() { echo $((PG_PORT + $(node_index "$1"))); }
rest_port_of() { echo $((REST_PORT + $(node_index "$1"))); }

# As root, daemons run as `postgres` (PostgreSQL refuses root; Patroni execs it). setpriv execs the
# program, so the pid recorded is the daemon's own.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    setpriv --reuid=postgres --regid=postgres --init-groups -- "$@"
  else
    "$@"
  fi
}

ensure_packages() {
  local missing=()
  command -v patroni >/dev/null 2>&1 || missing+=(patroni)
  command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
  command -v etcdctl >/dev/null 2>&1 || missing+=(etcd-client)
  [ -n "$(bin_dir)" ] || missing+=(postgresql-15)
  command -v psql >/dev/null 2>&1 || missing+=(postgresql-client-15)
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v pgbackrest >/dev/null 2>&1 || missing+=(pgbackrest)
  [ "${#missing[@]}" -eq 0 ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    die "missing: ${missing[*]}; install them (sudo apt-get install ${missing[*]}) or run this as root"
  fi
  say "installing ${missing[*]} (Debian packages)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
}

bin_dir() {
  find /usr/lib/postgresql -maxdepth 3 -path '*/bin/postgres' 2>/dev/null | sort -V | tail -n1 | xargs -r dirname
}

secret() {
  local file="$DIR/secrets/$1"
  if [ ! -s "$file" ]; then
    head -c 24 /dev/urandom | base64 | tr -dc 'A-Za-z0-9' >"$file"
  fi
  cat "$file"
}

prepare() {
  mkdir -p "$DIR/secrets" "$DIR/etcd"
  chmod 755 "$DIR"
  chmod 700 "$DIR/secrets"
  local superuser=postgres
  [ "$(id -u)" -eq 0 ] || superuser="$(id -un)"
  echo "$superuser" >"$DIR/secrets/superuser-name"
  secret superuser >/dev/null
  secret replication >/dev/null
  secret app >/dev/null
  [ -n "$(bin_dir)" ] || die "no PostgreSQL server binaries under /usr/lib/postgresql"
  pgbackrest_prepare
  local node
  for node in "${NODES[@]}"; do render_node "$node"; done
  if [ "$(id -u)" -eq 0 ]; then
    chown -R postgres:postgres "$DIR/etcd" "${NODES[@]/#/$DIR/}"
  fi
}

# Writes NODE's patroni.yml from the template; RESTORE_BLOCK (the environment), when set, is the
# custom bootstrap that restores it from the pgBackRest repository.
render_node() {
  local node="$1" nd="$DIR/$1"
  # The settings for data larger than memory, the embedded server's own, for one of three servers on this machine.
  local large_data key value
  large_data="$(postgres_large_data_settings "${#NODES[@]}" | while IFS='=' read -r key value; do printf '    %s: "%s"\n' "$key" "$value"; done)"
  if [ -n "${KOBO_CLUSTER_MAX_WAL_SIZE:-}" ]; then
    # A large data set on a small disk: three nodes each keeping 8 GB of WAL may not fit.
    large_data="$(printf '%s\n' "$large_data" | sed -e "s|^    max_wal_size: .*|    max_wal_size: \"$KOBO_CLUSTER_MAX_WAL_SIZE\"|" -e 's|^    min_wal_size: .*|    min_wal_size: "256MB"|')"
  fi
  large_data+=$'\n'
  mkdir -p "$nd/log"
  sed -e "s|@@NAME@@|$node|g" -e "s|@@REST_PORT@@|$(rest_port_of "$node")|g" \
      -e "s|@@ETCD_PORT@@|$ETCD_PORT|g" -e "s|@@PG_PORT@@|$(pg_port_of "$node")|g" \
      -e "s|@@NODE_DIR@@|$nd|g" -e "s|@@BIN_DIR@@|$(bin_dir)|g" \
      -e "s|@@SUPERUSER@@|$(cat "$DIR/secrets/superuser-name")|g" -e "s|@@SUPERUSER_PASSWORD@@|$(secret superuser)|g" \
      -e "s|@@REPLICATION_USER@@|replicator|g" -e "s|@@REPLICATION_PASSWORD@@|$(secret replication)|g" \
      -e "s|@@ARCHIVE_TIMEOUT@@|$ARCHIVE_TIMEOUT|g" -e "s|@@PGBACKREST@@|$(pgbackrest_of "$node")|g" \
      "$HERE/patroni.yml.template" |
    awk -v settings="$large_data" -v restore="${RESTORE_BLOCK:-}" '
      $1 == "@@LARGE_DATA_SETTINGS@@" { printf "%s", settings; next }
      $1 == "@@RESTORE_BOOTSTRAP@@" { if (restore != "") print restore; next }
      { print }' >"$nd/patroni.yml"
  chmod 600 "$nd/patroni.yml"
  [ "$(id -u)" -ne 0 ] || chown postgres:postgres "$nd" "$nd/log" "$nd/patroni.yml"
}

alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

start_etcd() {
  if alive "$DIR/etcd.pid"; then return 0; fi
  say "starting etcd on 127.0.0.1:$ETCD_PORT"
  local cmd=(etcd --name etcd1 --data-dir "$DIR/etcd/data"
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT"
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT"
    --initial-cluster "etcd1=http://127.0.0.1:$ETCD_PEER_PORT" --initial-cluster-state new
    --initial-cluster-token kobo-sync-local)
  daemon "$DIR/etcd.pid" "$DIR/etcd.log" "${cmd[@]}"
  for _ in $(seq 1 100); do
    if ETCDCTL_API=3 etcdctl --endpoints="127.0.0.1:$ETCD_PORT" endpoint health >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  die "etcd did not become healthy in 20 s (see $DIR/etcd.log)"
}

# Starts a program detached (own session, no terminal), as the owner, recording its pid.
daemon() {
  local pidfile="$1" log="$2"; shift 2
  # The log exists, owned by the owner, before the background job opens it: a chown after the
  # launch can run before the job's redirection has created the file.
  : >>"$log"
  if [ "$(id -u)" -eq 0 ]; then
    chown postgres:postgres "$log"
    setsid setpriv --reuid=postgres --regid=postgres --init-groups -- "$@" >>"$log" 2>&1 </dev/null &
  else
    setsid "$@" >>"$log" 2>&1 </dev/null &
  fi
  echo $! >"$pidfile"
  # Not this shell's job: its end (a node killed by a later command of the same shell) is not reported here.
  disown $!
}

start_node() {
  local node="$1" nd="$DIR/$1"
  if alive "$nd/patroni.pid"; then return 0; fi
  say "starting $node (PostgreSQL 127.0.0.1:$(pg_port_of "$node"), Patroni REST 127.0.0.1:$(rest_port_of "$node"))"
  daemon "$nd/patroni.pid" "$nd/patroni.log" patroni "$nd/patroni.yml"
}

stop_pidfile() {
  local pidfile="$1" what="$2" wait_s="${3:-30}"
  alive "$pidfile" || { rm -f "$pidfile"; return 0; }
  local pid; pid="$(cat "$pidfile")"
  say "stopping $what (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 $((wait_s * 5))); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$pidfile"; return 0; }
    sleep 0.2
  done
  say "$what did not stop in ${wait_s} s; killing it"
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$pidfile"
}

stop_node() {
  local node="$1" nd="$DIR/$1"
  stop_pidfile "$nd/patroni.pid" "$node" 30
  # Patroni stops its PostgreSQL; one left behind by a killed Patroni is stopped here (fast shutdown).
  local pm="$nd/data/postmaster.pid"
  if [ -f "$pm" ] && kill -0 "$(head -n1 "$pm")" 2>/dev/null; then
    say "stopping the PostgreSQL left by $node"
    kill -INT "$(head -n1 "$pm")" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$(head -n1 "$pm" 2>/dev/null || echo 0)" 2>/dev/null || break; sleep 0.2; done
  fi
}

cluster_json() { curl -fsS --max-time 2 "http://127.0.0.1:$1/cluster" 2>/dev/null; }

# "leader sync replica" counts of running members, from any node that answers.
member_counts() {
  local node json
  for node in "${NODES[@]}"; do
    if json="$(cluster_json "$(rest_port_of "$node")")"; then
      printf '%s' "$json" | /usr/bin/python3 -c '
import json, sys
members = json.load(sys.stdin).get("members", [])
up = [m for m in members if m.get("state") in ("running", "streaming")]
leader = sum(1 for m in up if m.get("role") == "leader")
sync = sum(1 for m in up if m.get("role") == "sync_standby")
replica = sum(1 for m in up if m.get("role") in ("replica", "sync_standby"))
print(leader, sync, replica)'
      return 0
    fi
  done
  echo "0 0 0"
}

leader_node() {
  local node
  for node in "${NODES[@]}"; do
    if curl -fsS --max-time 1 -o /dev/null "http://127.0.0.1:$(rest_port_of "$node")/leader" 2>/dev/null; then
      echo "$node"; return 0
    fi
  done
  return 1
}

wait_healthy() {
  local limit="${1:-120}" start=$SECONDS counts
  while [ $((SECONDS - start)) -lt "$limit" ]; do
    counts="$(member_counts)"
    # shellcheck disable=SC2086
    set -- $counts
    if [ "$1" -eq 1 ] && [ "$2" -ge 1 ] && [ "$3" -eq 2 ]; then
      say "cluster healthy: 1 leader, 2 replicas (1 synchronous) after $((SECONDS - start)) s"
      return 0
    fi
    sleep 1
  done
  die "no healthy cluster after $limit s (leader/sync/replicas: $counts); see $DIR/node*/patroni.log"
}

psql_leader() {
  local leader; leader="$(leader_node)" || die "no leader"
  PGPASSWORD="$(secret superuser)" psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$(pg_port_of "$leader")" \
    -U "$(cat "$DIR/secrets/superuser-name")" -d postgres "$@"
}

create_database() {
  local app_pw; app_pw="$(secret app)"
  psql_leader -c "DO \$\$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$APP_USER') THEN
        CREATE ROLE $APP_USER LOGIN PASSWORD '$app_pw';
      END IF;
    END \$\$;"
  if [ -z "$(psql_leader -tA -c "SELECT 1 FROM pg_database WHERE datname = '$DATABASE'")" ]; then
    psql_leader -c "CREATE DATABASE $DATABASE OWNER $APP_USER"
  fi
}

hosts() {
  local list=() node
  for node in "${NODES[@]}"; do list+=("127.0.0.1:$(pg_port_of "$node")"); done
  local IFS=,; echo "${list[*]}"
}

strings() {
  local base
  base="Host=$(hosts);Database=$DATABASE;Username=$APP_USER;Password=$(secret app);Host Recheck Seconds=1;Timeout=3"
  echo "Storage__ConnectionString=\"$base;Target Session Attributes=primary\""
  echo "Storage__ReadConnectionString=\"$base;Target Session Attributes=prefer-standby;Load Balance Hosts=true\""
}

cmd_up() {
  ensure_packages
  prepare
  start_etcd
  local node
  for node in "${NODES[@]}"; do start_node "$node"; done
  wait_healthy 120
  create_database
  stanza_create
  say "database '$DATABASE' ready; give the service:"
  strings
}

cmd_down() {
  local node
  # The exporters beside the nodes, if exporters.sh started them.
  [ ! -d "$DIR/exporters" ] || bash "$HERE/exporters.sh" down
  for node in "${NODES[@]}"; do stop_node "$node"; done
  stop_pidfile "$DIR/etcd.pid" etcd 30
  if [ "${1:-}" = "--purge" ]; then
    rm -rf "$DIR"
    say "removed $DIR"
  fi
}

# patronictl ARGS... through the first node whose Patroni runs; fails when none does
patronictl_any() {
  local node
  for node in "${NODES[@]}"; do
    if alive "$DIR/$node/patroni.pid"; then
      as_owner patronictl -c "$DIR/$node/patroni.yml" "$@"
      return
    fi
  done
  say "no node is running"
  return 1
}

cmd_status() { patronictl_any list; }

cmd_maintenance() {
  patronictl_any "$([ "$1" = on ] && echo pause || echo resume)" --wait >/dev/null || exit 1
  say "maintenance mode $1"
}

cmd_kill_leader() {
  local leader pm pid
  leader="$(leader_node)" || die "no leader to kill"
  if [ "${1:-}" = "--node" ]; then
    say "kill -9 $leader's Patroni and PostgreSQL (a lost machine); bring it back with: $0 restart $leader"
    pid="$(cat "$DIR/$leader/patroni.pid")"
    pm="$(head -n1 "$DIR/$leader/data/postmaster.pid")"
    kill -KILL "$pid" "$pm" 2>/dev/null || true
    # The backends outlive a SIGKILLed postmaster until they notice; stop them as the machine would.
    pkill -KILL -P "$pm" 2>/dev/null || true
  else
    pm="$(head -n1 "$DIR/$leader/data/postmaster.pid")"
    say "kill -9 $leader's postmaster (pid $pm); its Patroni stays and rejoins it as a replica"
    kill -KILL "$pm"
  fi
  echo "$leader"
}

cmd_restart() {
  local node="${1:-}"
  [ -n "$node" ] || die "usage: $0 restart node1|node2|node3"
  node_index "$node" >/dev/null
  stop_node "$node"
  start_node "$node"
}

# The synchronous standby's name, from any node that answers.
sync_standby() {
  local node json
  for node in "${NODES[@]}"; do
    if json="$(cluster_json "$(rest_port_of "$node")")"; then
      printf '%s' "$json" | /usr/bin/python3 -c '
import json, sys
names = [m["name"] for m in json.load(sys.stdin).get("members", []) if m.get("role") == "sync_standby" and m.get("state") == "running"]
print(names[0] if names else "")' | grep . && return 0
      return 1
    fi
  done
  return 1
}

# The leader's view of NODE's replication connection (pg_stat_replication.state), empty when none.
replication_state() {
  local node="$1" leader
  leader="$(leader_node)" || return 1
  PGPASSWORD="$(secret superuser)" PGCONNECT_TIMEOUT=2 psql -X -q -tA -h 127.0.0.1 -p "$(pg_port_of "$leader")" \
    -U "$(cat "$DIR/secrets/superuser-name")" -d postgres \
    -c "SELECT state FROM pg_stat_replication WHERE application_name = '$node'" 2>/dev/null
}

# NODE is a running replica within MAX_LAG_BYTES of the leader (Patroni's GET /replica?lag=) and the
# leader sees it streaming.
streaming() {
  local node="$1"
  curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$(rest_port_of "$node")/replica?lag=$MAX_LAG_BYTES" 2>/dev/null &&
    [ "$(replication_state "$node")" = streaming ]
}

healthy() {
  local counts; counts="$(member_counts)"
  # shellcheck disable=SC2086
  set -- $counts
  [ "$1" -eq 1 ] && [ "$2" -ge 1 ] && [ "$3" -eq 2 ]
}

# Waits up to LIMIT seconds until NODE streams again and the cluster is healthy.
wait_serving() {
  local node="$1" limit="$2" start=$SECONDS
  while [ $((SECONDS - start)) -lt "$limit" ]; do
    if streaming "$node" && healthy; then return 0; fi
    sleep 0.5
  done
  return 1
}

elapsed_since() { /usr/bin/python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$1" "$EPOCHREALTIME"; }

# A planned switchover from LEADER to CANDIDATE through the leader's Patroni REST API: Patroni checks
# the candidate is current (with synchronous mode it must be the synchronous standby), demotes the
# leader with a checkpoint and promotes the candidate; the old leader follows it as a replica.
switchover_to() {
  local leader="$1" candidate="$2" start=$EPOCHREALTIME code body
  say "switchover: $leader -> $candidate (Patroni REST POST /switchover)"
  body="$DIR/switchover.out"
  code="$(curl -sS --max-time 60 -o "$body" -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
    -d "{\"leader\": \"$leader\", \"candidate\": \"$candidate\"}" \
    "http://127.0.0.1:$(rest_port_of "$leader")/switchover" 2>&1)" || true
  [ "$code" = 200 ] || die "switchover $leader -> $candidate refused ($code): $(cat "$body" 2>/dev/null)"
  local waited=$SECONDS
  while [ $((SECONDS - waited)) -lt 60 ]; do
    if [ "$(leader_node || true)" = "$candidate" ] && streaming "$leader" && healthy; then
      say "switchover done: $candidate leads, $leader streams from it, after $(elapsed_since "$start") s"
      return 0
    fi
    sleep 0.5
  done
  die "after the switchover to $candidate: no healthy cluster with $leader streaming in 60 s; see $DIR/node*/patroni.log"
}

cmd_switchover() {
  local to=""
  case "${1:-}" in
    --to) to="${2:-}"; [ -n "$to" ] || die "usage: $0 switchover [--to node1|node2|node3]"; node_index "$to" >/dev/null ;;
    "") ;;
    *) die "usage: $0 switchover [--to node1|node2|node3]" ;;
  esac
  healthy || die "the cluster is not healthy: no switchover (see $0 status)"
  local leader; leader="$(leader_node)" || die "no leader"
  local sync; sync="$(sync_standby)" || die "no synchronous standby to switch over to"
  [ -n "$to" ] || to="$sync"
  [ "$to" = "$sync" ] || [ "$to" = "$leader" ] ||
    die "with synchronous mode Patroni switches over only to the synchronous standby ($sync), not to $to"
  [ "$to" != "$leader" ] || die "$to leads already"
  switchover_to "$leader" "$to"
}

# Takes NODE down and back: switchover first when it leads, stop (Patroni and its PostgreSQL), the
# upgrade, start; prints "NODE down SECONDS s", the time from the stop until it streams again, and
# keeps the seconds in DOWN_S.
DOWN_S=0
upgrade_node() {
  local node="$1" leader candidate stopped
  leader="$(leader_node)" || die "no leader"
  if [ "$leader" = "$node" ]; then
    candidate="$(sync_standby)" || die "no synchronous standby to hand $node's leadership to"
    switchover_to "$node" "$candidate"
  fi
  stopped=$EPOCHREALTIME
  stop_node "$node"
  # Here a restart stands in for the upgrade: production installs the new packages at this point
  # (apt-get install --only-upgrade postgresql-15 patroni, or the OS change at hand).
  say "upgrading $node: a restart stands in for the package upgrade on this machine"
  start_node "$node"
  if ! wait_serving "$node" "$MAX_DOWN_S"; then
    echo "$node down >$MAX_DOWN_S s"
    die "$node not streaming again (lag <= $MAX_LAG_BYTES bytes) with a healthy cluster $MAX_DOWN_S s after its stop; rolling upgrade stopped here"
  fi
  DOWN_S="$(elapsed_since "$stopped")"
  say "$node serving again: streaming, cluster healthy, $DOWN_S s after its stop"
  echo "$node down $DOWN_S s"
}

cmd_rolling_upgrade() {
  healthy || die "the cluster is not healthy: no rolling upgrade (see $0 status)"
  local leader order=() node worst=0 started=$EPOCHREALTIME
  leader="$(leader_node)" || die "no leader"
  for node in "${NODES[@]}"; do [ "$node" = "$leader" ] || order+=("$node"); done
  order+=("$leader")
  say "rolling upgrade: ${order[*]} (replicas first, the leader $leader last)"
  for node in "${order[@]}"; do
    upgrade_node "$node"
    worst="$(/usr/bin/python3 -c "import sys; print(max(float(sys.argv[1]), float(sys.argv[2])))" "$worst" "$DOWN_S")"
  done
  say "rolling upgrade done in $(elapsed_since "$started") s; longest down $worst s (limit $MAX_DOWN_S s)"
  /usr/bin/python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)" "$worst" "$MAX_DOWN_S" ||
    die "a node was down $worst s, more than $MAX_DOWN_S s"
}

# The command line, checked before anything runs: --help anywhere prints the usage; an argument a
# command does not take stops here.
check_arguments() {
  local command="${1:-}" arg
  [ $# -eq 0 ] || shift
  for arg in "$@"; do case "$arg" in -h|--help) usage; exit 0 ;; esac; done
  case "$command" in
    up|status|strings|rolling-upgrade|verify|schedule)
      [ $# -eq 0 ] || usage_error "$command takes no argument: $1" ;;
    down) [ $# -eq 0 ] || { [ $# -eq 1 ] && [ "$1" = --purge ]; } || usage_error "down takes only --purge: $*" ;;
    kill-leader) [ $# -eq 0 ] || { [ $# -eq 1 ] && [ "$1" = --node ]; } || usage_error "kill-leader takes only --node: $*" ;;
    restart) { [ $# -eq 1 ] && [[ "$1" =~ ^node[123]$ ]]; } || usage_error "restart takes one of node1, node2, node3: ${*:-nothing given}" ;;
    switchover)
      [ $# -eq 0 ] || { [ $# -eq 2 ] && [ "$1" = --to ] && [[ "$2" =~ ^node[123]$ ]]; } ||
        usage_error "switchover takes only --to node1|node2|node3: $*" ;;
    backup) [ $# -eq 0 ] || { [ $# -eq 1 ] && [[ "$1" =~ ^(full|incr|diff)$ ]]; } || usage_error "backup takes full, incr or diff: $*" ;;
    info) [ $# -eq 0 ] || { [ $# -eq 1 ] && [ "$1" = --output=json ]; } || usage_error "info takes only --output=json: $*" ;;
    restore)
      { [ $# -eq 1 ] && [ "$1" = --latest ]; } || { [ $# -eq 2 ] && [ "$1" = --time ] && [ -n "$2" ]; } ||
        usage_error "restore takes --time T or --latest: ${*:-nothing given}" ;;
    restore-drill)
      while [ $# -gt 0 ]; do
        case "$1" in
          --service|--token|--user|--after-backup|--after-target)
            { [ $# -ge 2 ] && [ -n "$2" ]; } || usage_error "restore-drill $1 needs a value"; shift 2 ;;
          --skip-latest) shift ;;
          *) usage_error "unknown restore-drill option $1" ;;
        esac
      done ;;
    maintenance) { [ $# -eq 1 ] && [[ "$1" =~ ^(on|off)$ ]]; } || usage_error "maintenance takes on or off: ${*:-nothing given}" ;;
    wait) [ $# -eq 0 ] || { [ $# -eq 1 ] && [[ "$1" =~ ^[0-9]+$ ]]; } || usage_error "wait takes a number of seconds: $*" ;;
    help|-h|--help) usage; exit 0 ;;
    "") usage_error "no command given" ;;
    -*) usage_error "unknown option $command" ;;
    *) usage_error "unknown command $command" ;;
  esac
}

check_arguments "$@"
case "${1:-}" in
  up) cmd_up ;;
  down) shift; cmd_down "$@" ;;
  status) cmd_status ;;
  kill-leader) shift; cmd_kill_leader "$@" ;;
  restart) shift; cmd_restart "$@" ;;
  strings) strings ;;
  switchover) shift; cmd_switchover "$@" ;;
  rolling-upgrade) cmd_rolling_upgrade ;;
  backup) shift; cmd_backup "$@" ;;
  verify) cmd_verify ;;
  info) shift; cmd_info "$@" ;;
  schedule) cmd_schedule ;;
  restore) shift; cmd_restore "$@" ;;
  restore-drill) shift; cmd_restore_drill "$@" ;;
  maintenance) cmd_maintenance "$2" ;;
  wait) wait_healthy "${2:-120}" ;;
esac
