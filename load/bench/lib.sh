# shellcheck shell=bash
# Shared by compare.sh and cost.sh, so that both measure exactly the same loads: the device tokens,
# wrk against a REST read, and pgbench running the same read's SQL; the other benches take their
# helpers from it too (a free loopback port). Sourced from the repository root.

# A TCP port free on 127.0.0.1 now, for a server this run starts.
bench_free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# Refuses any target outside loopback (127.0.0.0/8, localhost).
# bench_start_embedded DLL DIR PORT: a build of the service in production mode, no demo seed, on its
# embedded PostgreSQL (data in DIR/postgres, port PORT+2), REST on 127.0.0.1:PORT and gRPC on PORT+1,
# logging to DIR/service.log, with bench keys; other settings come from the caller's environment. Sets
# service_pid (the timeout wrapper, at most an hour) and service_process (the service itself); exits 2,
# with the log, when it does not become ready within two minutes.
bench_start_embedded() {
  local dll="$1" dir="$2" port="$3"
  export ASPNETCORE_ENVIRONMENT=Production
  export Auth__SigningKey=bench-signing-key-that-is-at-least-32-bytes
  export Paging__CursorKey=bench-cursor-key-that-is-at-least-32-bytes-long
  export Endpoints__Rest="http://127.0.0.1:$port" Endpoints__Grpc="http://127.0.0.1:$((port + 1))"
  export Storage__Embedded__Enabled=true Storage__Embedded__DataDirectory="$dir/postgres" Storage__Embedded__Port="$((port + 2))"
  export Demo__Seed=false Kobo__PublicBaseUrl="http://127.0.0.1:$port"
  timeout 3600 dotnet "$dll" >"$dir/service.log" 2>&1 &
  service_pid=$!
  for _ in $(seq 1 120); do
    curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz/ready" 2>/dev/null && break
    kill -0 "$service_pid" 2>/dev/null || { cat "$dir/service.log" >&2; exit 2; }
    sleep 1
  done
  curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz/ready" || { echo "the service did not become ready" >&2; exit 2; }
  service_process=$(pgrep -P "$service_pid" | head -n1)
  [ -n "$service_process" ] || { echo "cannot find the service's process" >&2; exit 2; }
}

bench_require_loopback() {
  case "$1" in http://127.*|http://localhost*) ;; *) echo "refusing a non-loopback target: $1" >&2; exit 2 ;; esac
}

# PG OUT [DLL]: one "userNo<TAB>token" line per user of the database, signed with $AUTH_SIGNING_KEY;
# prints the number of users. DLL is a built service to mint them with (by default this checkout's,
# built here).
bench_mint_tokens() {
  local users dll="${3:-}"
  [ -n "${AUTH_SIGNING_KEY:-}" ] || { echo "set AUTH_SIGNING_KEY to the service's Auth:SigningKey" >&2; exit 2; }
  users=$(psql "$1" -Atc "SELECT max(user_no) FROM users")
  if [ -z "$dll" ]; then
    dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
    dll=src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll
  fi
  Auth__SigningKey="$AUTH_SIGNING_KEY" dotnet "$dll" \
    token --users "1-$users" --device bench --hours 4 | grep -P '^\d+\t' >"$2"
  echo "$users"
}

# PG OUT [DLL] [DEVICES]: DEVICES (20) tokens a user, each of its own device (fresh-1 ... fresh-N), every
# user's first, then every user's second, ...: OUT's "userNo<TAB>token" lines for the "fresh" load, where
# every request carries a token the service has not seen lately (more lines than the service's cache of
# validated tokens holds, ValidatedTokenCache.Capacity, 20,000), as in a fleet whose devices sync about
# hourly. Prints the number of lines.
bench_fresh_tokens() {
  local users dll="${3:-}" devices="${4:-20}" n
  [ -n "${AUTH_SIGNING_KEY:-}" ] || { echo "set AUTH_SIGNING_KEY to the service's Auth:SigningKey" >&2; exit 2; }
  users=$(psql "$1" -Atc "SELECT max(user_no) FROM users")
  if [ -z "$dll" ]; then
    dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
    dll=src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll
  fi
  : >"$2"
  for n in $(seq 1 "$devices"); do
    Auth__SigningKey="$AUTH_SIGNING_KEY" dotnet "$dll" token --users "1-$users" --device "fresh-$n" --hours 4 | grep -P '^\d+\t' >>"$2"
  done
  wc -l <"$2"
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

# The load of each --read mode of cost.sh and watch.sh, beyond compare.sh's two reads:
#   book    first page of GET /v1/users/N/books/B/highlights over every user and book with highlights
#           (books.tsv beside the tokens, from bench_book_pairs)
#   push    POST /v1/users/N/changes of 10 highlight changes, all applied (load/wrk/device-push.lua)
#   kobo    the first page of a Kobo library sync, GET /kobo/{secret}/v1/library/sync with no sync token
#           (kobo-links.txt beside the tokens, from bench_kobo_links)
#   live    GET /healthz/live: no token, no database, the framework's floor
# The book number the push load writes to: one the demo data does not use (see device-push.lua).
BENCH_PUSH_BOOK=999999
# The changes of one push request, and the connections it runs with: a push holds the user's row lock
# to commit, so fewer connections than the reads keep its queue (and its answers) well inside the
# storage deadline on a shared 2-core box.
BENCH_PUSH_CHANGES=10
BENCH_PUSH_CONNECTIONS=8
# The Kobo load's connections: at most Kobo:LinkLookupConcurrency (4) + Kobo:LinkLookupQueue (16), so that
# while the link cache (a minute's lifetime) refills no look-up is refused with 503.
BENCH_KOBO_CONNECTIONS=16

# PG OUT: one "userNo<TAB>bookNo" line for each user and book with live highlights (the push load's book
# left out), at most 3 books a user: every request of a user carries the same device token, and a user
# with dozens of books would otherwise be sent more than the service's per-device allowance (20 at once,
# then 10 a second) and answered 429. Prints the number of lines.
bench_book_pairs() {
  psql "$1" -Atc "SELECT user_no || E'\t' || book_no FROM (
                    SELECT user_no, book_no, row_number() OVER (PARTITION BY user_no ORDER BY book_no) AS nth
                    FROM highlights WHERE deleted_at IS NULL AND book_no <> $BENCH_PUSH_BOOK GROUP BY user_no, book_no) b
                  WHERE nth <= 3 ORDER BY user_no, book_no" >"$2"
  wc -l <"$2"
}

# PG URL TOKENS OUT [MAX]: makes a Kobo link (POST /v1/users/N/kobo-links with the user's device token)
# for each of the first MAX (default 1000) users that own books, and writes their "/kobo/<secret>" paths,
# one a line; prints how many. A user keeps at most 20 live links: each call makes one more.
bench_kobo_links() {
  local max="${5:-1000}"
  psql "$1" -Atc "SELECT DISTINCT user_no FROM users_books WHERE removed_at IS NULL ORDER BY user_no LIMIT $max" >"$4.users"
  timeout 600 /usr/bin/python3 - "$2" "$3" "$4.users" "$4" <<'PY'
import http.client, json, sys, urllib.parse
url, tokens_path, users_path, out_path = sys.argv[1:5]
parts = urllib.parse.urlsplit(url)
tokens = dict(line.rstrip("\n").split("\t", 1) for line in open(tokens_path) if "\t" in line)
connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
paths = []
for user in (line.strip() for line in open(users_path)):
    if user not in tokens:
        continue
    connection.request("POST", f"/v1/users/{user}/kobo-links", body=b"", headers={"Authorization": "Bearer " + tokens[user]})
    response = connection.getresponse()
    body = response.read()
    if response.status != 201:
        sys.exit(f"POST /v1/users/{user}/kobo-links answered {response.status}: {body[:300]!r}")
    paths.append(urllib.parse.urlsplit(json.loads(body)["apiEndpoint"]).path)
with open(out_path, "w") as out:
    out.write("".join(p + "\n" for p in paths))
print(len(paths))
PY
  rm -f "$4.users"
}

# URL TOKENS: one push of the push load's shape for the first user of TOKENS, with curl, and its answer
# checked: every change "applied". Its keys are its own (watchcheck0..9), so it leaves the load's alone.
bench_push_check() {
  local user token at body answer applied attempt
  IFS=$'\t' read -r user token <"$2"
  # A first push on a cold service on a busy box may miss the storage deadline (503, retry later): as a
  # device would, try again a few times, each time as a new edit (a newer time and text).
  for attempt in 1 2 3 4 5; do
    at=$(date -u +%Y-%m-%dT%H:%M:%S.%6NZ)
    body=$(for k in $(seq 0 $((BENCH_PUSH_CHANGES - 1))); do
      printf '{"op":"upsert","bookNo":"%s","key":"watchcheck%s","text":"watch check %s","start":1,"length":24,"color":"yellow","modifiedAt":"%s"}\n' \
        "$BENCH_PUSH_BOOK" "$k" "$at" "$at"
    done | paste -sd, -)
    answer=$(curl -sS -X POST -H "Authorization: Bearer $token" -H "Content-Type: application/json" \
      --data "{\"changes\":[$body]}" -w '\n%{http_code}' "$1/v1/users/$user/changes") || answer=$'\n000'
    if [ "${answer##*$'\n'}" != 503 ] || [ "$attempt" -eq 5 ]; then break; fi
    sleep 2
  done
  [ "${answer##*$'\n'}" = 200 ] || { echo "the push check was answered ${answer##*$'\n'}: ${answer%$'\n'*}" >&2; return 1; }
  answer=${answer%$'\n'*}
  applied=$(grep -o '"status":"applied"' <<<"$answer" | wc -l)
  if [ "$applied" -ne "$BENCH_PUSH_CHANGES" ]; then
    echo "the push check had $applied of $BENCH_PUSH_CHANGES changes applied: $answer" >&2
    return 1
  fi
}

# URL: changes the service has applied so far (its /metrics kobo_sync_push_changes_total{status="applied"}).
bench_push_applied() {
  curl -fsS "$1/metrics" 2>/dev/null | awk '/^kobo_sync_push_changes_total/ && /status="applied"/ {n += $2} END {printf "%.0f", n}'
}

# URL: managed bytes the service has allocated so far, or nothing when its /metrics is off.
bench_allocated() {
  curl -fsS "$1/metrics" 2>/dev/null | awk '/^dotnet_gc_heap_total_allocated_bytes_total/ {printf "%.0f", $2}'
}

# SECONDS USERS: how many passes over the users the push load formats, enough for SECONDS at up to
# 3,000 pushes a second (device-push.lua repeats itself, "unchanged", past them).
bench_push_passes() {
  echo $(( ($1 * 3000 + $2 - 1) / $2 + 1 ))
}

# MODE URL SECONDS CONNECTIONS TOKENS OUT: wrk with the driver of MODE (user, highlights, book, push,
# kobo, live); books.tsv and kobo-links.txt are read beside TOKENS. Warns of non-2xx answers.
bench_wrk_mode() {
  local dir passes users
  dir=$(dirname "$5")
  case "$1" in
    user|highlights) bench_wrk "$1" "$2" "$3" "$4" "$5" "$6"; return 0 ;;
    book) READ=book TOKENS="$5" BOOKS="$dir/books.tsv" wrk -t2 -c"$4" -d"${3}s" --latency -s load/wrk/device-reads.lua "$2" >"$6" 2>&1 ;;
    push)
      users=$(wc -l <"$5")
      passes=$(bench_push_passes "$3" "$users")
      TOKENS="$5" PASSES="$passes" THREADS=2 BOOK="$BENCH_PUSH_BOOK" \
        wrk -t2 -c"$BENCH_PUSH_CONNECTIONS" -d"${3}s" --latency -s load/wrk/device-push.lua "$2" >"$6" 2>&1 ;;
    fresh) READ=user TOKENS="$dir/fresh-tokens.tsv" wrk -t2 -c"$4" -d"${3}s" --latency -s load/wrk/device-reads.lua "$2" >"$6" 2>&1 ;;
    sync) READ=sync TOKENS="$dir/sync-tokens.tsv" wrk -t2 -c"$4" -d"${3}s" --latency -s load/wrk/device-reads.lua "$2" >"$6" 2>&1 ;;
    kobo) READ=kobo LINKS="$dir/kobo-links.txt" wrk -t2 -c"$(( $4 < BENCH_KOBO_CONNECTIONS ? $4 : BENCH_KOBO_CONNECTIONS ))" -d"${3}s" --latency -s load/wrk/device-reads.lua "$2" >"$6" 2>&1 ;;
    live) wrk -t2 -c"$4" -d"${3}s" --latency "$2/healthz/live" >"$6" 2>&1 ;;
    *) echo "unknown read mode: $1" >&2; exit 2 ;;
  esac
  if grep -q "Non-2xx" "$6"; then
    echo "wrk saw non-2xx answers:" >&2
    grep -A1 "Non-2xx" "$6" >&2
  fi
  return 0
}

# MODE PG URL WORK: what MODE needs beside the tokens in WORK/tokens.tsv: the book pairs, the Kobo links,
# or the push load's highlights (created by one pass of the load, then counted in the database).
bench_prepare_mode() {
  case "$1" in
    book) echo "==> $(bench_book_pairs "$2" "$4/books.tsv") users' books with highlights" >&2 ;;
    kobo) echo "==> $(bench_kobo_links "$2" "$3" "$4/tokens.tsv" "$4/kobo-links.txt") Kobo links made" >&2 ;;
    fresh) echo "==> $(bench_fresh_tokens "$2" "$4/fresh-tokens.tsv" "${BENCH_DLL:-}") tokens of devices not seen yet" >&2 ;;
    sync) echo "==> $(bench_sync_tokens "$3" "$4/tokens.tsv" "$4/sync-tokens.tsv") devices caught up (a full sync each)" >&2 ;;
    push)
      bench_push_check "$3" "$4/tokens.tsv" || exit 2
      echo "==> push check: $BENCH_PUSH_CHANGES of $BENCH_PUSH_CHANGES changes applied" >&2
      bench_push_prime "$2" "$3" "$4" ;;
  esac
}

# URL TOKENS OUT: each user of TOKENS pulls every change (GET /v1/users/N/changes, walking syncToken), from
# its token in OUT when OUT has one (so only what changed since is pulled), else from the start; OUT gets
# "userNo<TAB>device token<TAB>caught-up sync token" lines, the "sync" load's: a scheduled sync that finds
# nothing new. Prints how many. Eight pulls at a time, each bounded (30 s).
bench_sync_tokens() {
  python3 - "$1" "$2" "$3" <<'PY'
import concurrent.futures, json, os, sys, urllib.parse, urllib.request
base, tokens, out = sys.argv[1:4]
users = [line.rstrip("\n").split("\t")[:2] for line in open(tokens) if line.strip()]
held = {}
if os.path.exists(out):
    held = {parts[0]: parts[2] for parts in (line.rstrip("\n").split("\t") for line in open(out)) if len(parts) == 3}
def caught_up(user, token):
    since = held.get(user)
    while True:
        query = "?pageSize=1000" + ("&since=" + urllib.parse.quote(since, safe="") if since else "")
        request = urllib.request.Request(f"{base}/v1/users/{user}/changes{query}", headers={"Authorization": f"Bearer {token}"})
        with urllib.request.urlopen(request, timeout=30) as answer:
            page = json.load(answer)
        since = page["syncToken"]
        if not page["hasMore"]:
            return since
with concurrent.futures.ThreadPoolExecutor(8) as pool:
    synced = list(pool.map(lambda u: caught_up(u[0], u[1]), users))
with open(out, "w") as f:
    for (user, token), since in zip(users, synced):
        f.write(f"{user}\t{token}\t{since}\n")
print(len(synced))
PY
}

# PG: the database's work so far, "statements WAL-bytes write-transactions": this database's statements
# (pg_stat_statements, when the server loads it; "-" otherwise), the WAL position in bytes, and the next
# transaction id (only a transaction that writes takes one). All three are exact at once, unlike the
# cumulative statistics a backend reports up to a second late.
bench_db_work() {
  local statements
  statements=$(psql "$1" -Atqc "CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
    SELECT coalesce(sum(calls), 0) FROM pg_stat_statements
    WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())" 2>/dev/null | tail -1) || statements=-
  echo "${statements:--} $(psql "$1" -Atqc "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint, pg_snapshot_xmax(pg_current_snapshot())")" | tr '|' ' '
}

# BEFORE AFTER N: per request, from two bench_db_work lines; the measuring queries themselves (four
# statements a pair) are left out of the statements.
bench_db_per_request() {
  awk -v n="$3" -v a="$1" -v b="$2" 'BEGIN {
    split(a, x, " "); split(b, y, " ")
    if (x[1] == "-" || y[1] == "-") st = "-"; else st = sprintf("%.2f", (y[1] - x[1] - 4) / n)
    printf "%s %.1f %.3f", st, (y[2] - x[2]) / n, (y[3] - x[3]) / n }'
}

# PG URL WORK: runs the push load until every user of WORK/tokens.tsv has its 10 highlights in the push
# load's book, so that measured pushes update (not create) them, as every later run does. Bounded:
# three runs of 20 s at most.
bench_push_prime() {
  local users want have _
  users=$(wc -l <"$3/tokens.tsv")
  want=$(( users * BENCH_PUSH_CHANGES ))
  for _ in 1 2 3; do
    have=$(psql "$1" -Atc "SELECT count(*) FROM highlights WHERE book_no = $BENCH_PUSH_BOOK AND id LIKE '%/watch_'")
    [ "$have" -lt "$want" ] || break
    echo "==> push load's highlights: $have of $want; pushing a pass over the users" >&2
    bench_wrk_mode push "$2" 20 "$BENCH_PUSH_CONNECTIONS" "$3/tokens.tsv" "$3/prime.out"
  done
  have=$(psql "$1" -Atc "SELECT count(*) FROM highlights WHERE book_no = $BENCH_PUSH_BOOK AND id LIKE '%/watch_'")
  [ "$have" -ge "$want" ] || { echo "the push load's highlights are $have of $want after priming" >&2; exit 2; }
}

# CPU per process, from /proc, in clock ticks (getconf CLK_TCK a second).
bench_port_of() { echo "$1" | sed -n 's/.*:\([0-9][0-9]*\).*/\1/p'; }
# PORT: the pid of the process listening on the TCP port.
bench_listener() { ss -ltnpH "sport = :$1" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2; }
bench_own_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# POSTMASTER: the postmaster's own time, its live children's and what its exited children used.
bench_pg_ticks() {
  local total reaped pid
  reaped=$(awk '{print $16 + $17}' "/proc/$1/stat")
  total=$(( $(bench_own_ticks "$1") + reaped ))
  for pid in $(pgrep -P "$1"); do
    total=$(( total + $(bench_own_ticks "$pid" 2>/dev/null || echo 0) ))
  done
  echo "$total"
}
# PID: what the process's reaped children (wrk, pgbench) used.
bench_children_ticks() { awk '{print $16 + $17}' "/proc/$1/stat"; }
# TICKS N: microseconds per request.
bench_per_request() { awk -v t="$(getconf CLK_TCK)" -v n="$2" -v d="$1" 'BEGIN {printf "%.1f", d / t * 1e6 / n}'; }

# MODE URL SERVICE_PID POSTMASTER SECONDS CONNECTIONS WORK: one wrk run of MODE against the service,
# with what it cost. Prints "req/s service-µs bytes postgres-µs wrk-µs requests applied non-2xx", each
# cost per request; bytes is "-" when the service's /metrics is off, applied the changes the service
# applied meanwhile (push), non-2xx the answers wrk counted outside 2xx/3xx. With BENCH_PG (a conninfo)
# set, three more: the database's statements, WAL bytes and write transactions per request
# (bench_db_work; the whole server's WAL and transactions, so nothing else may load it meanwhile).
# Run it in a subshell of its own ($(...)): the load generator's CPU is read as the subshell's reaped children's.
bench_measure() {
  local mode="$1" url="$2" pid="$3" postmaster="$4" seconds="$5" connections="$6" work="$7"
  local s0 p0 c0 a0 a1 u0 u1 n bytes=- me=$BASHPID out="$7/wrk-$1.out"
  local d0="" d1="" db=""
  a0=$(bench_allocated "$url"); u0=$(bench_push_applied "$url")
  [ -z "${BENCH_PG:-}" ] || d0=$(bench_db_work "$BENCH_PG")
  s0=$(bench_own_ticks "$pid"); p0=$(bench_pg_ticks "$postmaster"); c0=$(bench_children_ticks "$me")
  bench_wrk_mode "$mode" "$url" "$seconds" "$connections" "$work/tokens.tsv" "$out"
  n=$(awk '/requests in/ {print $1}' "$out")
  [ "${n:-0}" -gt 0 ] || { echo "wrk completed no request: $(cat "$out")" >&2; exit 2; }
  local s1 p1 c1
  s1=$(bench_own_ticks "$pid"); p1=$(bench_pg_ticks "$postmaster"); c1=$(bench_children_ticks "$me")
  a1=$(bench_allocated "$url"); u1=$(bench_push_applied "$url")
  [ -z "${BENCH_PG:-}" ] || { d1=$(bench_db_work "$BENCH_PG"); db=" $(bench_db_per_request "$d0" "$d1" "$n")"; }
  [ -z "$a0" ] || [ -z "$a1" ] || bytes=$(( (a1 - a0) / n ))
  echo "$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$out") $(bench_per_request $(( s1 - s0 )) "$n") $bytes" \
    "$(bench_per_request $(( p1 - p0 )) "$n") $(bench_per_request $(( c1 - c0 )) "$n") $n $(( ${u1:-0} - ${u0:-0} ))" \
    "$(awk '/Non-2xx/ {n = $5} END {print n + 0}' "$out")$db"
}
