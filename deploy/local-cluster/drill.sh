# shellcheck shell=bash
# cluster.sh restore-drill: the whole cluster lost and restored from the pgBackRest repository while
# writes go on, checked against a ledger of acknowledged writes. Sourced by cluster.sh.
#
# 1. Writes start: one row every 100 ms through the multi-host read-write string (libpq's failover,
#    as the service's Npgsql does), and with --service one device push (a new highlight) every
#    200 ms through the service. Each is kept in a ledger: when it was sent, when it was acknowledged.
# 2. A full backup is taken under those writes.
# 3. The writes go on for --after-backup seconds; then T, a point in time, is noted; the writes go on
#    for --after-target seconds (more than archive_timeout, so that WAL past T is archived).
# 4. The loss: the writes stop, the leader's archive status is noted, every node is killed and its
#    data deleted.
# 5. Restore to the latest point (unless --skip-latest): the acknowledged writes missing are the RPO,
#    the age of the newest archived segment at the loss explains them; RTO is from the restore's start
#    to the first acknowledged write (and device push) again.
# 6. Every node lost again, restore to T: every write acknowledged before T must be there, none sent
#    after T; RTO measured the same way.
# Prints the figures; exits non-zero when a check fails.

DRILL_LEDGER=restore_drill_ledger

# psql on DB as the superuser, on the leader.
psql_db() {
  local db="$1"; shift
  local leader; leader="$(leader_node)" || die "no leader"
  PGPASSWORD="$(secret superuser)" PGCONNECT_TIMEOUT=3 psql -X -q -tA -v ON_ERROR_STOP=1 -h 127.0.0.1 \
    -p "$(pg_port_of "$leader")" -U "$(cat "$DIR/secrets/superuser-name")" -d "$db" "$@"
}

now_ms() { date +%s%3N; }

# The read-write string a client uses, all three nodes, as the application's owner.
rw_string() {
  local node hosts=() ports=()
  for node in "${NODES[@]}"; do hosts+=(127.0.0.1); ports+=("$(pg_port_of "$node")"); done
  local IFS=,
  echo "host=${hosts[*]} port=${ports[*]} dbname=$DATABASE user=$APP_USER target_session_attrs=read-write connect_timeout=2"
}

# One row per 100 ms; prints "SENT_MS ACKED_MS ID ok|fail" per write, until killed.
drill_writer() {
  local run="$1" i="$2" start rw; rw="$(rw_string)"
  while true; do
    start=$(now_ms)
    if PGPASSWORD="$(secret app)" timeout 5 psql -X -q -d "$rw" -c "INSERT INTO $DRILL_LEDGER (run, id) VALUES ('$run', $i)" >/dev/null 2>&1; then
      echo "$start $(now_ms) $i ok"
    else
      echo "$start $(now_ms) $i fail"
    fi
    i=$((i + 1))
    sleep 0.1
  done
}

# One device push (a new highlight under KEY) through the service: "SENT_MS ACKED_MS KEY ok|fail".
push_once() {
  local key="$1" start body
  start=$(now_ms)
  body="$(curl -s -m 5 -X POST -H "Authorization: Bearer $DRILL_TOKEN" -H 'Content-Type: application/json' \
    -d "{\"changes\":[{\"op\":\"upsert\",\"bookNo\":\"7\",\"key\":\"$key\",\"text\":\"marked during a restore drill\",\"start\":0,\"length\":29,\"color\":\"yellow\",\"modifiedAt\":\"$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)\"}]}" \
    -w '\n%{http_code}' "$DRILL_SERVICE/v1/users/$DRILL_USER/changes" 2>/dev/null || echo 000)"
  if [ "$(tail -n1 <<<"$body")" = 200 ] && grep -q '"applied"\|"unchanged"' <<<"$body"; then
    echo "$start $(now_ms) $key ok"
  else
    echo "$start $(now_ms) $key fail"
  fi
}

# One device push per 200 ms through the service, until killed.
drill_pusher() {
  local run="$1" i=0
  while true; do
    i=$((i + 1))
    push_once "drill-$run-$i"
    sleep 0.2
  done
}

# Waits until a write through the read-write string (and a device push, with --service) is
# acknowledged again; prints the ms it was acknowledged at.
first_acknowledged_after_restore() {
  local run="$1" limit=$((SECONDS + 300)) rw wrote="" pushed="" i=0 line
  rw="$(rw_string)"
  [ -n "$DRILL_SERVICE" ] || pushed=none
  while [ $SECONDS -lt $limit ]; do
    i=$((i + 1))
    if [ -z "$wrote" ] && PGPASSWORD="$(secret app)" timeout 5 psql -X -q -d "$rw" -c "INSERT INTO $DRILL_LEDGER (run, id) VALUES ('$run-back', $i)" >/dev/null 2>&1; then
      wrote=$(now_ms)
    fi
    if [ -z "$pushed" ]; then
      line="$(push_once "drill-$run-back-$i")"
      [ "${line##* }" != ok ] || pushed=$(now_ms)
    fi
    if [ -n "$wrote" ] && [ -n "$pushed" ]; then
      [ "$pushed" = none ] && echo "$wrote" || echo $((wrote > pushed ? wrote : pushed))
      return 0
    fi
    sleep 0.2
  done
  die "no write acknowledged 300 s after the restore"
}

# The writes (and pushes) in the ledger that are in the restored database: "ID" lines.
present_writes() {
  local run="$1"
  psql_db "$DATABASE" -c "SELECT id FROM $DRILL_LEDGER WHERE run = '$run'"
}

present_pushes() {
  local run="$1"
  psql_db "$DATABASE" -c "SELECT substr(id, length('highlights/users$DRILL_USER-ebooks/7/') + 1) FROM highlights WHERE id LIKE 'highlights/users$DRILL_USER-ebooks/7/drill-$run-%'"
}

# restore_and_check LABEL T_MS LOSS_MS TARGET: the restore (to TARGET: "latest" or a time), its RTO,
# and the ledger check. Prints the figures.
restore_and_check() {
  local label="$1" t_ms="$2" loss_ms="$3" target="$4" start back
  start=$(now_ms)
  if [ "$target" = latest ]; then
    cmd_restore --latest >"$DRILL_WORK/restore-$label.out"
  else
    cmd_restore --time "$target" >"$DRILL_WORK/restore-$label.out"
  fi
  local restored; restored="$(awk '/^restored /{print $2}' "$DRILL_WORK/restore-$label.out")"
  back="$(first_acknowledged_after_restore "$DRILL_RUN-$label")"
  present_writes "$DRILL_RUN" >"$DRILL_WORK/present-$label"
  : >"$DRILL_WORK/pushed-present-$label"
  [ -z "$DRILL_SERVICE" ] || present_pushes "$DRILL_RUN" >"$DRILL_WORK/pushed-present-$label"
  /usr/bin/python3 - "$label" "$DRILL_WORK" "$t_ms" "$loss_ms" "$start" "$back" "$restored" <<'PY'
import sys, os
label, work, t_ms, loss_ms, start, back, restored = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
def ledger(name):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        return []
    return [(int(s), int(e), k) for s, e, k, r in (l.split() for l in open(path)) if r == "ok"]
def present(name):
    path = os.path.join(work, name)
    return {l.strip() for l in open(path) if l.strip()} if os.path.exists(path) else set()
print(f"{label}: restored and healthy in {restored} s; writes acknowledged again {(back - start) / 1000:.1f} s after the restore started (RTO)")
ok = True
for what, acked, here in (("writes", ledger("writes"), present(f"present-{label}")), ("device pushes", ledger("pushes"), present(f"pushed-present-{label}"))):
    if not acked:
        continue
    if label == "latest":
        lost = [(s, e, k) for s, e, k in acked if k not in here]
        oldest = max(((loss_ms - e) / 1000 for s, e, k in lost), default=0)
        newest = min(((loss_ms - e) / 1000 for s, e, k in lost), default=0)
        print(f"latest {what}: {len(acked) - len(lost)}/{len(acked)} acknowledged present, lost {len(lost)}"
              + (f" (acknowledged {newest:.1f}-{oldest:.1f} s before the loss)" if lost else ""))
        print(f"latest {what} lost: {len(lost)}; oldest lost acknowledged {oldest:.1f} s before the loss")
        if oldest > 60:
            ok = False
            print(f"FAILED: a {what[:-1]} acknowledged {oldest:.1f} s before the loss is lost (goal: none older than 60 s)")
    else:
        before = [k for s, e, k in acked if e < t_ms]
        after = [k for s, e, k in acked if s > t_ms]
        between = len(acked) - len(before) - len(after)
        missing = [k for k in before if k not in here]
        leaked = [k for k in after if k in here]
        print(f"target {what}: acknowledged before T present {len(before) - len(missing)}/{len(before)}; sent after T present {len(leaked)}/{len(after)}; in flight at T {between}")
        if missing or leaked or not before or not after:
            ok = False
            print(f"FAILED: {what} missing before T {missing[:5]}, present after T {leaked[:5]}")
sys.exit(0 if ok else 1)
PY
}

cmd_restore_drill() {
  DRILL_SERVICE="" DRILL_TOKEN="" DRILL_USER=""
  local after_backup=20 after_target=45 skip_latest=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --service) DRILL_SERVICE="${2:-}"; shift ;;
      --token) DRILL_TOKEN="${2:-}"; shift ;;
      --user) DRILL_USER="${2:-}"; shift ;;
      --after-backup) after_backup="${2:-}"; shift ;;
      --after-target) after_target="${2:-}"; shift ;;
      --skip-latest) skip_latest=1 ;;
      *) die "unknown restore-drill argument '$1' (see $0 --help)" ;;
    esac
    shift
  done
  [ -z "$DRILL_SERVICE" ] || { [ -n "$DRILL_TOKEN" ] && [ -n "$DRILL_USER" ]; } || die "--service needs --token and --user"
  healthy || die "the cluster is not healthy: no drill (see $0 status)"
  DRILL_WORK="$DIR/drill"
  rm -rf "$DRILL_WORK"; mkdir -p "$DRILL_WORK"
  DRILL_RUN="r$(now_ms)"
  psql_db "$DATABASE" -c "SET client_min_messages = warning; CREATE TABLE IF NOT EXISTS $DRILL_LEDGER (run text, id int, at timestamptz NOT NULL DEFAULT clock_timestamp(), PRIMARY KEY (run, id)); GRANT ALL ON $DRILL_LEDGER TO $APP_USER"
  if [ -n "$DRILL_SERVICE" ]; then
    psql_db "$DATABASE" -c "INSERT INTO users (user_no, name, created_at) VALUES ($DRILL_USER, 'a reader', now()) ON CONFLICT DO NOTHING"
  fi
  say "restore drill $DRILL_RUN: archive_timeout $ARCHIVE_TIMEOUT, writes every 100 ms${DRILL_SERVICE:+, device pushes every 200 ms through $DRILL_SERVICE}"

  drill_writer "$DRILL_RUN" 1 >"$DRILL_WORK/writes" &
  local writer=$! pusher=""
  if [ -n "$DRILL_SERVICE" ]; then drill_pusher "$DRILL_RUN" >"$DRILL_WORK/pushes" & pusher=$!; fi
  sleep 3
  local backup_start=$EPOCHREALTIME label
  label="$(cmd_backup full | tail -n1)"
  echo "backup: full $label in $(elapsed_since "$backup_start") s under writes"
  sleep "$after_backup"
  local t_ms t
  t_ms=$(now_ms)
  t="$(date -u -d "@$((t_ms / 1000)).$(printf '%03d' $((t_ms % 1000)))" '+%Y-%m-%d %H:%M:%S.%3N+00')"
  echo "target T: $t"
  sleep "$after_target"

  # The loss. What the archive holds at this moment explains what a restore to the latest point loses.
  local archive
  archive="$(psql_db postgres -F ' ' -c "SELECT coalesce(last_archived_wal, '-'), coalesce(round(extract(epoch FROM now() - last_archived_time)::numeric, 1)::text, '-'), pg_walfile_name(pg_current_wal_lsn()), failed_count FROM pg_stat_archiver")"
  kill "$writer" ${pusher:+"$pusher"} 2>/dev/null || true
  wait "$writer" ${pusher:+"$pusher"} 2>/dev/null || true
  local loss_ms; loss_ms=$(now_ms)
  destroy_nodes
  echo "loss: every node killed and its data deleted in $(elapsed_since "${loss_ms:0:-3}.${loss_ms: -3}") s"
  # shellcheck disable=SC2086
  set -- $archive
  echo "archive at the loss: last archived segment $1, archived $2 s before the loss; current segment $3; failed pushes $4 (archive_timeout $ARCHIVE_TIMEOUT)"
  /usr/bin/python3 - "$DRILL_WORK" "$t_ms" "$loss_ms" <<'PY'
import sys, os
work, t_ms, loss_ms = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
for name, what in (("writes", "writes"), ("pushes", "device pushes")):
    path = os.path.join(work, name)
    if not os.path.exists(path):
        continue
    rows = [l.split() for l in open(path)]
    ok = [r for r in rows if r[3] == "ok"]
    print(f"{what}: {len(ok)} acknowledged ({sum(1 for r in ok if int(r[1]) < t_ms)} before T), {len(rows) - len(ok)} failed, over {(loss_ms - int(rows[0][0])) / 1000:.0f} s")
PY

  local failed=0
  if [ -z "$skip_latest" ]; then
    restore_and_check latest "$t_ms" "$loss_ms" latest || failed=1
    say "the restored cluster is lost again; now restore to T"
    destroy_nodes
  fi
  restore_and_check target "$t_ms" "$loss_ms" "$t" || failed=1
  [ "$failed" -eq 0 ] || die "restore drill failed (ledgers in $DRILL_WORK)"
  say "restore drill passed; take a new full backup of the restored cluster: $0 backup full"
}
