# shellcheck shell=bash
# pgBackRest for the local cluster: the repository all three nodes share on local disk, WAL archiving
# from whichever node leads, backups, verification, retention, the backup-age metric and a restore of
# every node from the repository. Sourced by cluster.sh (uses its DIR, NODES, say, die, as_owner, ...).
#
# Repository: $DIR/pgbackrest/repo (one stanza, "kobo-sync"); configuration $DIR/pgbackrest/pgbackrest.conf.
# Retention: KOBO_CLUSTER_RETENTION_FULL full backups (default 2) and the WAL needed to restore to any
# point since the oldest of them; an incremental or differential backup goes with its full one.

STANZA=kobo-sync
PGBR_DIR="$DIR/pgbackrest"
PGBR_CONF="$PGBR_DIR/pgbackrest.conf"
RETENTION_FULL="${KOBO_CLUSTER_RETENTION_FULL:-2}"
# A WAL segment is closed and archived at least this often while writes go on: the most acknowledged
# work a restore to the latest point can lose, less the time to push the segment.
# shellcheck disable=SC2034 # cluster.sh's render_node writes it into patroni.yml
ARCHIVE_TIMEOUT="${KOBO_CLUSTER_ARCHIVE_TIMEOUT:-30s}"
# Where the backup job writes kobo_sync_backup_last_success_timestamp_seconds for node_exporter's
# textfile collector (--collector.textfile.directory).
TEXTFILE_DIR="${KOBO_CLUSTER_TEXTFILE_DIR:-$DIR/textfile}"
BACKUP_METRIC_FILE=kobo_sync_backup.prom

# The pgbackrest command line a node's archive_command and restore_command start with.
pgbackrest_of() {
  local nd="$DIR/$1"
  echo "pgbackrest --config=$PGBR_CONF --stanza=$STANZA --pg1-path=$nd/data"
}

pgbackrest_prepare() {
  mkdir -p "$PGBR_DIR/repo" "$PGBR_DIR/log" "$PGBR_DIR/lock" "$PGBR_DIR/spool" "$TEXTFILE_DIR"
  # Paths of its own (not /tmp/pgbackrest, /var/log/pgbackrest): two clusters on one machine must not
  # share locks or logs.
  cat >"$PGBR_CONF" <<EOF
[global]
repo1-path=$PGBR_DIR/repo
repo1-retention-full-type=count
repo1-retention-full=$RETENTION_FULL
compress-type=lz4
process-max=2
start-fast=y
log-path=$PGBR_DIR/log
lock-path=$PGBR_DIR/lock
spool-path=$PGBR_DIR/spool
log-level-console=warn
log-level-file=info

[$STANZA]
pg1-user=$(cat "$DIR/secrets/superuser-name")
EOF
  chmod 700 "$PGBR_DIR/repo"
  if [ "$(id -u)" -eq 0 ]; then
    chown -R postgres:postgres "$PGBR_DIR" "$TEXTFILE_DIR"
  fi
}

# pgbackrest as the owner, against NODE's PostgreSQL (its data directory, port and socket).
pgbackrest_on() {
  local node="$1"; shift
  as_owner pgbackrest --config="$PGBR_CONF" --stanza="$STANZA" --pg1-path="$DIR/$node/data" \
    --pg1-port="$(pg_port_of "$node")" --pg1-socket-path="$DIR/$node" "$@"
}

pgbackrest_repo() { as_owner pgbackrest --config="$PGBR_CONF" --stanza="$STANZA" "$@"; }

# Creates the stanza (once; again is a no-op) and checks that the leader's WAL reaches the repository.
stanza_create() {
  local leader; leader="$(leader_node)" || die "no leader"
  pgbackrest_on "$leader" stanza-create >/dev/null
  pgbackrest_on "$leader" check
  say "pgBackRest stanza '$STANZA' ready in $PGBR_DIR/repo; WAL archived from $leader"
}

# cluster.sh backup [full|incr|diff]: a backup of the leader (incr without a full one is made full),
# then expiry by the retention, then the metric. Prints the backup's label.
cmd_backup() {
  local type="${1:-incr}"
  case "$type" in full | incr | diff) ;; *) die "usage: $0 backup [full|incr|diff]" ;; esac
  local leader start=$EPOCHREALTIME
  leader="$(leader_node)" || die "no leader to back up"
  say "$type backup of $leader into $PGBR_DIR/repo"
  pgbackrest_on "$leader" --type="$type" backup
  write_backup_metric
  local label
  label="$(pgbackrest_repo info --output=json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["backup"][-1]["label"])')"
  say "backup $label done in $(elapsed_since "$start") s"
  echo "$label"
}

# cluster.sh verify: pgbackrest verify reads every backup file and archived WAL segment of the
# repository and checks them against their checksums; non-zero when one is missing or damaged.
cmd_verify() {
  local report
  report="$(pgbackrest_repo --output=text verify 2>&1)" || { printf '%s\n' "$report" >&2; die "pgbackrest verify failed"; }
  printf '%s\n' "$report"
  write_backup_metric verify
  say "repository verified"
}

cmd_info() { pgbackrest_repo info "$@"; }

# Rewrites the textfile collector's file from the repository itself (pgbackrest info), so that it
# says what is there, whoever ran the backup: per type the unix time the newest backup of that type
# ended. With "verify", the time of this successful verification is kept too.
write_backup_metric() {
  local out="$TEXTFILE_DIR/$BACKUP_METRIC_FILE" verified=""
  if [ "${1:-}" = verify ]; then
    verified="$(date +%s)"
  elif [ -f "$out" ]; then
    verified="$(awk '/^kobo_sync_backup_verify_last_success_timestamp_seconds /{print $2}' "$out")"
  fi
  mkdir -p "$TEXTFILE_DIR"
  pgbackrest_repo info --output=json | /usr/bin/python3 -c '
import json, sys
verified = sys.argv[1]
stanza = json.load(sys.stdin)[0]
last = {}
for b in stanza.get("backup", []):
    if b.get("error"):
        continue
    t = b["type"]
    last[t] = max(last.get(t, 0), b["timestamp"]["stop"])
print("# HELP kobo_sync_backup_last_success_timestamp_seconds Unix time the newest successful pgBackRest backup of each type ended.")
print("# TYPE kobo_sync_backup_last_success_timestamp_seconds gauge")
for t in ("full", "incr", "diff"):
    if t in last:
        print(f"kobo_sync_backup_last_success_timestamp_seconds{{type=\"{t}\"}} {last[t]}")
if verified:
    print("# HELP kobo_sync_backup_verify_last_success_timestamp_seconds Unix time of the last pgbackrest verify that found the repository whole.")
    print("# TYPE kobo_sync_backup_verify_last_success_timestamp_seconds gauge")
    print(f"kobo_sync_backup_verify_last_success_timestamp_seconds {verified}")
' "$verified" >"$out.tmp"
  # node_exporter must never read a half-written file.
  mv "$out.tmp" "$out"
}

# cluster.sh schedule: the cron entries that run the backups and the verification on this machine
# (install with: cluster.sh schedule | crontab -). The Terraform nodes run the same as systemd timers.
cmd_schedule() {
  local env="KOBO_CLUSTER_DIR=$DIR KOBO_CLUSTER_PG_PORT=$PG_PORT KOBO_CLUSTER_REST_PORT=$REST_PORT KOBO_CLUSTER_ETCD_PORT=$ETCD_PORT KOBO_CLUSTER_TEXTFILE_DIR=$TEXTFILE_DIR"
  local script="$HERE/cluster.sh" log="$PGBR_DIR/log/schedule.log"
  cat <<EOF
# Kobo.Sync local cluster: pgBackRest backups and verification (m h dom mon dow).
# A full backup every Sunday, an incremental one every hour, the repository verified every day.
10 1 * * 0   $env $script backup full >>$log 2>&1
40 * * * *   $env $script backup incr >>$log 2>&1
25 3 * * *   $env $script verify >>$log 2>&1
EOF
}

# The Patroni custom bootstrap that restores NODE from the repository: TARGET is "latest" (every
# archived WAL segment) or a time PostgreSQL reads ("2026-11-29 10:41:07.250+00").
restore_bootstrap_block() {
  local node="$1" target="$2" nd="$DIR/$1"
  local args=(--config="$PGBR_CONF" --stanza="$STANZA" --pg1-path="$nd/data" --log-level-console=info)
  if [ "$target" = latest ]; then
    args+=(--type=default)
  else
    args+=(--type=time "--target=$target" --target-action=promote)
  fi
  {
    echo '#!/bin/sh'
    echo '# Written by cluster.sh restore: Patroni runs it to bootstrap this node from the pgBackRest repository.'
    echo 'set -e'
    echo "mkdir -p -m 700 '$nd/data'"
    printf 'exec pgbackrest'
    printf " '%s'" "${args[@]}"
    echo ' restore'
  } >"$nd/restore-bootstrap.sh"
  chmod 755 "$nd/restore-bootstrap.sh"
  [ "$(id -u)" -ne 0 ] || chown postgres:postgres "$nd/restore-bootstrap.sh"
  printf '  method: pgbackrest_restore\n  pgbackrest_restore:\n    command: %s\n    keep_existing_recovery_conf: true\n    no_params: true\n' "$nd/restore-bootstrap.sh"
}

# Kills every node (as a lost machine: no clean stop) and deletes its data directory.
destroy_nodes() {
  local node
  for node in "${NODES[@]}"; do
    # A lost machine: no clean stop.
    if alive "$DIR/$node/patroni.pid"; then kill -KILL "$(cat "$DIR/$node/patroni.pid")" 2>/dev/null || true; fi
    local pm="$DIR/$node/data/postmaster.pid"
    if [ -f "$pm" ]; then
      local pid; pid="$(head -n1 "$pm")"
      kill -KILL "$pid" 2>/dev/null || true
      pkill -KILL -P "$pid" 2>/dev/null || true
    fi
    rm -f "$DIR/$node/patroni.pid"
  done
  sleep 1
  for node in "${NODES[@]}"; do rm -rf "$DIR/$node/data"; done
}

# Removes the cluster's state (leader, members, initialize key, configuration) from etcd, so that
# the next node Patroni starts bootstraps a new cluster.
forget_cluster() {
  ETCDCTL_API=3 etcdctl --endpoints="127.0.0.1:$ETCD_PORT" del --prefix /kobo-sync-local/kobo-sync-local/ >/dev/null
}

# cluster.sh restore [--time T | --latest]: the cluster restored from the repository. Every node is
# stopped and its data deleted (it is assumed lost), the cluster's keys in etcd removed; node1
# bootstraps from the repository (pgbackrest restore, PostgreSQL replays the archived WAL up to T or
# to its end, then promotes), node2 and node3 join it as new replicas. Prints "restored SECONDS s",
# counted from after the deletion.
cmd_restore() {
  local target=""
  case "${1:-}" in
    --time) target="${2:-}"; [ -n "$target" ] || die "usage: $0 restore --time 'YYYY-MM-DD HH:MM:SS.mmm+00' | --latest" ;;
    --latest) target=latest ;;
    *) die "usage: $0 restore --time 'YYYY-MM-DD HH:MM:SS.mmm+00' | --latest" ;;
  esac
  ensure_packages
  local start first="${NODES[0]}"
  say "restore to $target: every node's data deleted, $first restored from $PGBR_DIR/repo"
  destroy_nodes
  start=$EPOCHREALTIME
  prepare
  start_etcd
  forget_cluster
  RESTORE_BLOCK="$(restore_bootstrap_block "$first" "$target")" render_node "$first"
  start_node "$first"
  local waited=$SECONDS
  until curl -fsS --max-time 2 -o /dev/null "http://127.0.0.1:$(rest_port_of "$first")/primary" 2>/dev/null; do
    [ $((SECONDS - waited)) -lt "$RESTORE_LIMIT_S" ] || die "$first did not lead $RESTORE_LIMIT_S s after the restore started; see $DIR/$first/patroni.log and $PGBR_DIR/log"
    alive "$DIR/$first/patroni.pid" || die "$first's Patroni stopped during the restore; see $DIR/$first/patroni.log"
    sleep 0.5
  done
  say "$first restored and leading after $(elapsed_since "$start") s; the others join as replicas"
  render_node "$first" # a later start of this node must not bootstrap again
  local node
  for node in "${NODES[@]:1}"; do start_node "$node"; done
  wait_healthy "$RESTORE_LIMIT_S"
  echo "restored $(elapsed_since "$start") s"
}

RESTORE_LIMIT_S="${KOBO_CLUSTER_RESTORE_LIMIT:-1800}"
