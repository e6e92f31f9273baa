#!/usr/bin/env bash
# A library-like account's first Kobo library sync, page by page. Starts the service (Release build,
# production mode) on its embedded PostgreSQL in a private data directory, gives one user 60,000 owned
# books, 20,000 highlights and 2,000 reading states straight in the database, links a Kobo e-reader for them
# (token --kobo-link) and walks GET /kobo/{secret}/v1/library/sync from no token until the service
# stops saying x-kobo-sync: continue, as a device does, --rounds times (each a full first sync after
# one unrecorded warm-up). Prints, per round, the pages, the entitlements, the p50, p99 and max time
# of a page and the total, then the medians of the rounds, the machine's cores and load average.
# Loopback only; the service and its PostgreSQL are stopped at the end; every step is bounded.
#
#   load/bench/kobo-first-sync.sh [--books 60000] [--highlights 20000] [--reading-states 2000] [--rounds 3] [--port 5490]
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."
# shellcheck source=load/bench/lib.sh
. load/bench/lib.sh

books=60000 highlights=20000 states=2000 rounds=3 port=5490
while [ $# -gt 0 ]; do
  case "$1" in
    --books) books="$2"; shift 2 ;;
    --highlights) highlights="$2"; shift 2 ;;
    --reading-states) states="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --port) port="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
for tool in psql curl /usr/bin/python3; do command -v "$tool" >/dev/null || { echo "missing $tool" >&2; exit 2; }; done

work=$(mktemp -d /tmp/kobo-first-sync.XXXXXX)
chmod 755 "$work"
url="http://127.0.0.1:$port"
pg_port=$((port + 2))
# Pages back to back, as fast as the service answers them: the link's own request budget (50 a
# second by default, a device's pace) is lifted so that the figures are the service's, not the limiter's.
export Admission__PerKoboLinkRequestsPerSecond=1000 Admission__PerKoboLinkBurst=1000
service_pid=""
stop() {
  if [ -n "$service_pid" ]; then kill -INT "$service_pid" 2>/dev/null || true; wait "$service_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap stop EXIT

echo "==> building (Release)"
dotnet build src/SyncApi -c Release -v q -nologo >/dev/null
dll=src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll

echo "==> starting the service on $url (embedded PostgreSQL on port $pg_port, data in $work)"
bench_start_embedded "$dll" "$work" "$port"
pg="host=127.0.0.1 port=$pg_port dbname=kobo_sync user=kobo password=$(cat "$work/postgres/kobo-sync.password")"

echo "==> user 1: $books owned books, $highlights highlights, $states reading states"
psql "$pg" -v ON_ERROR_STOP=1 -qX <<SQL
BEGIN;
INSERT INTO users (user_no, name, created_at) VALUES (1, 'library reader', now()) ON CONFLICT DO NOTHING;
INSERT INTO books (book_no, title, author, language)
SELECT n, 'Book ' || n, 'Author ' || (n % 7919), CASE WHEN n % 5 = 0 THEN 'de' ELSE 'en' END
FROM generate_series(1, $books) n ON CONFLICT DO NOTHING;
DELETE FROM users_books WHERE user_no = 1;
INSERT INTO users_books (user_no, book_no, acquired_at) SELECT 1, n, now() - interval '1 year' FROM generate_series(1, $books) n;
DELETE FROM highlights WHERE user_no = 1;
INSERT INTO highlights (id, user_no, book_no, text, start, length, color, created_at, modified_at, seq)
SELECT format('highlights/users1-ebooks/%s/h%s', 1 + i % $books, lpad(i::text, 7, '0')),
       1, 1 + i % $books, 'passage ' || i, i, 20, 'yellow', now(), now(), i
FROM generate_series(1, $highlights) i;
DELETE FROM reading_states WHERE user_no = 1;
INSERT INTO reading_states (user_no, book_no, percent, location, position_at, status, status_at, seq)
SELECT 1, n, (n % 100)::float8, '{"Value":"kobo.' || n || '.1","Type":"KoboSpan"}', now(), 'reading', now(), $highlights + n
FROM generate_series(1, $states) n;
UPDATE users SET change_seq = greatest(change_seq, $highlights + $states) WHERE user_no = 1;
COMMIT;
ANALYZE users_books; ANALYZE books; ANALYZE highlights; ANALYZE reading_states;
SQL

endpoint=$(Storage__ConnectionString="Host=127.0.0.1;Port=$pg_port;Database=kobo_sync;Username=kobo;Password=$(cat "$work/postgres/kobo-sync.password")" \
  dotnet "$dll" token --kobo-link --user 1 --device bench-phone | tail -n1)
case "$endpoint" in "$url"/kobo/*) ;; *) echo "no Kobo link: $endpoint" >&2; exit 2 ;; esac

echo "==> walking the first library sync, $rounds rounds"
timeout 1800 /usr/bin/python3 - "$endpoint" "$rounds" "$books" "$states" <<'PY'
import http.client, json, os, statistics, sys, time, urllib.parse
endpoint, rounds, books, states = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
parts = urllib.parse.urlsplit(endpoint)

def walk(max_pages):
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    token, times, items, reading, started_all = None, [], 0, 0, time.perf_counter()
    while len(times) < max_pages:
        headers = {"x-kobo-synctoken": token} if token else {}
        started = time.perf_counter()
        connection.request("GET", parts.path + "/v1/library/sync", headers=headers)
        response = connection.getresponse()
        body = response.read()
        times.append((time.perf_counter() - started) * 1000)
        assert response.status == 200, (response.status, body[:300])
        page = json.loads(body)
        items += sum(1 for item in page if "NewEntitlement" in item)
        reading += sum(1 for item in page if "ChangedReadingState" in item)
        token = response.getheader("x-kobo-synctoken")
        if response.getheader("x-kobo-sync") != "continue":
            break
    connection.close()
    return times, items, reading, (time.perf_counter() - started_all) * 1000

walk(20)  # unrecorded warm-up: the link's look-up, JIT, prepared statements
results = []
for r in range(1, rounds + 1):
    load = os.getloadavg()[0]
    times, items, reading, total = walk(10**9)
    ordered = sorted(times)
    p50 = statistics.median(times)
    p99 = ordered[max(0, int(len(ordered) * 0.99) - 1)]
    results.append((len(times), items, p50, p99, ordered[-1], total, load))
    print(f"round {r}: pages {len(times)}, entitlements {items}, reading states {reading}, page p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {ordered[-1]:.1f} ms, total {total / 1000:.2f} s (load average {load:.2f})")
    assert items == books, f"{items} entitlements for {books} owned books"
    assert reading == states, f"{reading} reading states for {states} stored"
median = lambda i: statistics.median(r[i] for r in results)
print(f"median of {rounds} rounds: pages {median(0):.0f}, page p50 {median(2):.1f} ms, p99 {median(3):.1f} ms, max {median(4):.1f} ms, total {median(5) / 1000:.2f} s")
print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at the end")
PY
