# shellcheck shell=bash
# Shared by compare.sh and cost.sh, so that both measure exactly the same loads: the device tokens,
# wrk against a REST read, and pgbench running the same read's SQL. Sourced from the repository root.

# Refuses any target outside loopback (127.0.0.0/8, localhost).
bench_require_loopback() {
  case "$1" in http://127.*|http://localhost*) ;; *) echo "refusing a non-loopback target: $1" >&2; exit 2 ;; esac
}

# PG OUT: one "userNo<TAB>token" line per user of the database, signed with $AUTH_SIGNING_KEY;
# prints the number of users.
bench_mint_tokens() {
  local users
  [ -n "${AUTH_SIGNING_KEY:-}" ] || { echo "set AUTH_SIGNING_KEY to the service's Auth:SigningKey" >&2; exit 2; }
  users=$(psql "$1" -Atc "SELECT max(user_no) FROM users")
  dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
  Auth__SigningKey="$AUTH_SIGNING_KEY" dotnet src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll \
    token --users "1-$users" --device bench --hours 4 | grep -P '^\d+\t' >"$2"
  echo "$users"
}

# READ URL SECONDS CONNECTIONS TOKENS OUT: wrk, every request a different user with its own token.
bench_wrk() {
  READ="$1" TOKENS="$5" wrk -t2 -c"$4" -d"${3}s" --latency -s load/wrk/device-reads.lua "$2" >"$6" 2>&1
  if grep -q "Non-2xx" "$6"; then
    echo "wrk saw non-2xx answers:" >&2
    grep -A1 "Non-2xx" "$6" >&2
  fi
  return 0
}

# READ PG SECONDS CONNECTIONS USERS OUT: pgbench -M prepared running the read's SQL for random users.
bench_pgbench() {
  pgbench -n -M prepared -c "$4" -j 2 -T "$3" -D users="$5" -f "load/pgbench/$1.sql" "$2" >"$6" 2>&1
}

# PG URL LOG [SETTINGS]: starts load/bench/bare (the same reads on ASP.NET Core and Npgsql alone, no token, no
# resilience, no logs, no telemetry) on the loopback URL against that database, waits until it
# answers and prints its pid. SETTINGS are extra Npgsql connection settings ("Multiplexing=true").
# It stops by itself after an hour if nobody stops it first.
bench_start_bare() {
  local connection pid _
  bench_require_loopback "$2"
  dotnet build load/bench/bare -c Release -v q -nologo >/dev/null
  # libpq's "host=... port=... dbname=... user=... password=..." in Npgsql's spelling.
  connection=$(echo "$1" | sed -E 's/(^| )dbname=/\1Database=/; s/(^| )user=/\1Username=/; s/ +/;/g')${4:+;$4}
  ASPNETCORE_URLS="$2" timeout 3600 dotnet load/bench/bare/bin/Release/net10.0/Kobo.Sync.BareRead.dll \
    --ConnectionString "$connection" >"$3" 2>&1 &
  pid=$!
  for _ in $(seq 1 60); do
    if curl -fsS -o /dev/null "$2/v1/users/1"; then echo "$pid"; return 0; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  echo "the bare reference app did not answer at $2; its output:" >&2
  cat "$3" >&2
  kill "$pid" 2>/dev/null
  exit 2
}
