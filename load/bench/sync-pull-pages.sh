#!/usr/bin/env bash
# Times every page of one user's first sync (GET /v1/users/{n}/changes, walking syncToken) against a
# running service, after giving that user --highlights highlights (default 200,000) straight in the
# database. Prints the time of page 1, page 100, the last page, and the median and p99 of all pages.
# The pages must cost the same whatever their number: each is a keyset range of (user, seq, id).
#
#   AUTH_SIGNING_KEY=... load/bench/sync-pull-pages.sh --pg "host=... dbname=... user=... password=..." \
#     --url http://127.0.0.1:5090 --user 2999 [--highlights 200000] [--page-size 100]
set -euo pipefail
# The comment at the top of this file, from its second line: the usage.
usage() { sed -n '2,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$0"; }
cd "$(dirname "$0")/../.."

pg="" url="" user="" highlights=200000 page_size=100
while [ $# -gt 0 ]; do
  case "$1" in
    --pg) pg="$2"; shift 2 ;;
    --url) url="$2"; shift 2 ;;
    --user) user="$2"; shift 2 ;;
    --highlights) highlights="$2"; shift 2 ;;
    --page-size) page_size="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
  esac
done
if [ -z "$pg" ] || [ -z "$url" ] || [ -z "$user" ] || [ -z "${AUTH_SIGNING_KEY:-}" ]; then
  echo "usage: AUTH_SIGNING_KEY=... $0 --pg CONNINFO --url BASE_URL --user N [--highlights N] [--page-size N]" >&2
  exit 2
fi

echo "==> giving user $user $highlights highlights (replacing theirs)"
psql "$pg" -v ON_ERROR_STOP=1 -q <<SQL
BEGIN;
DELETE FROM highlights WHERE user_no = $user;
INSERT INTO highlights (id, user_no, book_no, text, start, length, color, created_at, modified_at, seq)
SELECT format('highlights/users%s-ebooks/%s/h%s', $user, 1 + i % 500, lpad(i::text, 7, '0')),
       $user, 1 + i % 500, 'passage ' || i, i, 20, 'yellow', now(), now(), i
FROM generate_series(1, $highlights) i;
UPDATE users SET change_seq = greatest(change_seq, $highlights) WHERE user_no = $user;
COMMIT;
ANALYZE highlights;
SQL

token="$(Auth__SigningKey="$AUTH_SIGNING_KEY" dotnet src/SyncApi/bin/Release/net10.0/Kobo.Sync.SyncApi.dll token --user "$user" --device bench-pull | tail -n1)"

echo "==> walking the first sync in pages of $page_size"
/usr/bin/python3 - "$url" "$user" "$token" "$page_size" <<'PY'
import json, statistics, sys, time, urllib.parse, urllib.request
url, user, token, size = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]

def walk(max_pages):
    since, times, changes = "", [], 0
    while len(times) < max_pages:
        query = urllib.parse.urlencode({"pageSize": size, **({"since": since} if since else {})})
        request = urllib.request.Request(f"{url}/v1/users/{user}/changes?{query}", headers={"Authorization": f"Bearer {token}"})
        started = time.perf_counter()
        with urllib.request.urlopen(request) as response:
            body = response.read()
        times.append((time.perf_counter() - started) * 1000)
        page = json.loads(body)
        changes += len(page["changes"])
        since = page["syncToken"]
        if not page["hasMore"]:
            break
    return times, changes

walk(20)  # unrecorded warm-up: token validation, JIT, prepared statements
times, changes = walk(10**9)
ordered = sorted(times)
print(f"pages {len(times)}, changes {changes}")
def around(i):  # median of the 11 pages centred on page i (0-based), a steadier figure on a shared machine
    window = times[max(0, i - 5):i + 6]
    return statistics.median(window)
last = len(times) - 1
print(f"page 1 {times[0]:.1f} ms, page 100 {times[min(99, last)]:.1f} ms, last page {times[last]:.1f} ms")
print(f"medians of 11 pages around them: {around(0):.1f} ms, {around(min(99, last)):.1f} ms, {around(last):.1f} ms")
print(f"median {statistics.median(times):.1f} ms, p99 {ordered[int(len(ordered) * 0.99) - 1]:.1f} ms, max {ordered[-1]:.1f} ms")
PY
