# shellcheck shell=bash disable=SC2034,SC2154 # the caller sets repo, sim, service_dll and out, and reads what this sets
# The local target of the runs at scale (load/bench/scale.sh, load/release-gate.sh): PostgreSQL from the
# machine's binaries with its data in DATA_DIR/pgdata (kept between runs, loopback only, default
# durability, the large-data settings of deploy/postgres/settings.sh), a database per data-set size
# seeded once by the simulator's resumable seed, and the service's Release build in front of it.
#
# Source deploy/postgres/settings.sh and this file, set repo (the checkout's root), sim (the simulator's
# command, an array), service_dll, out (the results folder) and a log function, then call
# stack_init DATA_DIR. It sets:
#   data_dir (absolute), bin (the server binaries), pgdata, as_pg (the prefix that runs a command as the
#   postgres user when this shell is root: PostgreSQL refuses to run as root), pg_port, rest, grpc (free
#   loopback ports) and pg_settings (the server's -c arguments; append to override one, the last wins).
# use_database SIZE then sets data_users, npg (Npgsql's connection string) and pg (libpq's).
# The service signs and checks tokens with KOBO_SIM_SIGNING_KEY and cursors with KOBO_SIM_CURSOR_KEY
# (exported here when unset, so the simulator's devices and the service agree) and logs to service_log
# (default DATA_DIR/service.log). stack_stop stops whatever of it runs; call it from the EXIT trap.

# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

pg_started=0 service="" runner=""

# DATA_DIR: the data directory, made if new and made absolute; one inside the repository is refused
stack_data_dir() {
  mkdir -p "$1"
  data_dir=$(cd "$1" && pwd -P)
  case "$data_dir/" in "$repo/"*) echo "refusing a data directory inside the repository: $data_dir" >&2; exit 2 ;; esac
}

# DATA_DIR: prepares the data directory and the server; initialises the cluster when new
stack_init() {
  stack_data_dir "$1"
  bin=$(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V | tail -1)
  [ -x "$bin/postgres" ] || { echo "no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install postgresql)" >&2; exit 2; }
  pgdata="$data_dir/pgdata"
  as_pg=()
  if [ "$(id -u)" -eq 0 ]; then
    as_pg=(setpriv --reuid=postgres --regid=postgres --init-groups --)
    chmod 755 "$data_dir"
  fi
  mkdir -p "$data_dir/pg-run" # the server's log and socket
  [ ${#as_pg[@]} -eq 0 ] || chown postgres "$data_dir/pg-run"
  if [ ! -f "$pgdata/PG_VERSION" ]; then
    log "initialising PostgreSQL in $pgdata"
    mkdir -p "$pgdata"
    [ ${#as_pg[@]} -eq 0 ] || chown postgres "$pgdata"
    "${as_pg[@]}" "$bin/initdb" -D "$pgdata" -U postgres -A trust --encoding=UTF8 --no-locale >/dev/null
  fi
  pg_port=$(bench_free_port)
  local rest_port grpc_port
  rest_port=$(bench_free_port) grpc_port=$(bench_free_port)
  rest="http://127.0.0.1:$rest_port" grpc="http://127.0.0.1:$grpc_port"
  mapfile -t pg_settings < <(postgres_large_data_args 1)
  service_log=${service_log:-$data_dir/service.log}
  export KOBO_SIM_SIGNING_KEY=${KOBO_SIM_SIGNING_KEY:-bench-signing-key-that-is-at-least-32-bytes}
  export KOBO_SIM_CURSOR_KEY=${KOBO_SIM_CURSOR_KEY:-bench-cursor-key-that-is-at-least-32-bytes-long}
}

pg_start() {
  "${as_pg[@]}" "$bin/pg_ctl" -D "$pgdata" -l "$data_dir/pg-run/postgres.log" -w -t 600 \
    -o "-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$data_dir/pg-run -c jit=off -c max_connections=300 ${pg_settings[*]}" start >/dev/null
  pg_started=1
}
pg_stop() {
  [ "$pg_started" -eq 1 ] || return 0
  "${as_pg[@]}" "$bin/pg_ctl" -D "$pgdata" -m fast -t 600 stop >/dev/null 2>&1 || true
  pg_started=0
}
postmaster() { head -1 "$pgdata/postmaster.pid"; }

# SIZE: each size has its own database (kobo_sync_SIZE), kept between runs, so a size is seeded once
use_database() {
  data_users=$1
  npg="Host=127.0.0.1;Port=$pg_port;Database=kobo_sync_$1;Username=postgres"
  pg="host=127.0.0.1 port=$pg_port dbname=kobo_sync_$1 user=postgres"
  psql "host=127.0.0.1 port=$pg_port dbname=postgres user=postgres" -qXAtc "SELECT 1 FROM pg_database WHERE datname = 'kobo_sync_$1'" | grep -q 1 \
    || psql "host=127.0.0.1 port=$pg_port dbname=postgres user=postgres" -qXc "CREATE DATABASE kobo_sync_$1" >/dev/null
}

# SIZE: seeds kobo_sync_SIZE unless it is already seeded; an interrupted seed of it resumes
seed() {
  local n=$1 code=0
  if [ -f "$data_dir/seeded-$n" ] && [ -f "$data_dir/heaviest-$n.tsv" ]; then
    log "seed: $n users already in kobo_sync_$n"
    return 0
  fi
  log "seed: $n users into kobo_sync_$n (progress every 5 s; log $data_dir/seed-$n.log)"
  rm -f "$data_dir/vacuumed-$n" # new rows: settle vacuums them again
  seed_run "$n" || code=$?
  if [ "$code" -eq 3 ]; then # refused: a finished seed without its list (stopped while writing it); replace it
    log "seed: kobo_sync_$n holds a seed this run did not finish; replacing it"
    code=0
    seed_run "$n" --truncate || code=$?
  fi
  [ "$code" -eq 0 ] || { echo "the seed failed:" >&2; tail -20 "$data_dir/seed-$n.log" >&2; exit 2; }
  cp "$data_dir/seed-$n.log" "$out/"
  touch "$data_dir/seeded-$n"
}
seed_run() { # SIZE [--truncate]
  local n=$1 code=0; shift
  "${sim[@]}" seed --connection "$npg" --users "$n" --seed 20211 --writers 2 "$@" \
    --heaviest-out "$data_dir/heaviest-$n.tsv" --report-out "$out/seed-$n.json" >"$data_dir/seed-$n.log" 2>&1 &
  runner=$!
  while kill -0 "$runner" 2>/dev/null; do sleep 5; tail -1 "$data_dir/seed-$n.log" | cut -c1-240; done
  wait "$runner" || code=$?
  runner=""
  return "$code"
}

# SIZE: vacuums kobo_sync_SIZE once, then checkpoints, flushes the OS's dirty pages and waits (at most
# 10 minutes) until no autovacuum worker runs, so that no measurement shares the disk with the seed's
# aftermath
settle() {
  local n=$1 started waited
  started=$(date +%s)
  if [ ! -f "$data_dir/vacuumed-$n" ]; then
    log "settle: VACUUM (ANALYZE) of kobo_sync_$n"
    psql "$pg" -qXc "VACUUM (ANALYZE)" >/dev/null
    touch "$data_dir/vacuumed-$n"
  fi
  psql "$pg" -qXc "CHECKPOINT" >/dev/null
  sync
  for waited in $(seq 1 600); do
    [ "$(psql "$pg" -qXAtc "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'")" -eq 0 ] && break
    [ "$waited" -gt 1 ] || log "settle: waiting for autovacuum to finish"
    sleep 1
  done
  log "settle: kobo_sync_$n settled in $(( $(date +%s) - started )) s"
}

# The admission queue holds the SLA's worth of arrivals at the rates stepped (200 ms x 5,000/s): with the
# default 128 a 30-60 ms hiccup of this shared box at 4,000/s filled it, and the service refused requests
# while its p99 was 60 ms (docs/performance.md, "Scale"). The raw database's front has no such limit.
service_start() {
  ASPNETCORE_ENVIRONMENT=Production Auth__SigningKey=$KOBO_SIM_SIGNING_KEY Paging__CursorKey=$KOBO_SIM_CURSOR_KEY \
    Storage__ConnectionString="$npg;Maximum Pool Size=200" Endpoints__Rest=$rest Endpoints__Grpc=$grpc Demo__Seed=false \
    Admission__QueueLimit=1024 \
    timeout 86400 dotnet "$service_dll" >>"$service_log" 2>&1 &
  service=$!
}
service_wait() {
  local _
  for _ in $(seq 1 600); do
    curl -fsS -o /dev/null "$rest/healthz/ready" 2>/dev/null && return 0
    kill -0 "$service" 2>/dev/null || { tail -20 "$service_log" >&2; exit 2; }
    sleep 0.1
  done
  echo "the service did not become ready" >&2; tail -20 "$service_log" >&2; exit 2
}
service_stop() { [ -z "$service" ] || { kill "$service" 2>/dev/null || true; wait "$service" 2>/dev/null || true; service=""; }; }
service_process() { [ -n "$service" ] && pgrep -P "$service" | head -1; } # the service itself, under timeout

stack_stop() {
  [ -z "$runner" ] || kill "$runner" 2>/dev/null || true
  service_stop
  pg_stop
}
