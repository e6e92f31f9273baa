#!/usr/bin/env bash
# Runs the whole Kobo.Sync test suite from a clean checkout.
# Installs the Terraform parser the deploy tests use (npm), builds, runs every test project,
# and ends with one summary line: "tests: N passed, N failed, N skipped".
# Extra arguments go to `dotnet test` (for example: --filter "FullyQualifiedName~Deploy").
set -euo pipefail
cd "$(dirname "$0")/.."

for tool in dotnet node npm; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "error: '$tool' is not installed; the deploy tests need Node.js and npm (Debian: apt-get install nodejs npm)." >&2
    exit 1
  fi
done

echo "==> installing the HCL parser for the deploy tests (tests/Deploy.Tests/hcl)"
npm ci --prefix tests/Deploy.Tests/hcl --no-audit --no-fund --loglevel=error

# gRPC interop: @grpc/grpc-js is one of the two independent clients the gRPC tests drive.
echo "==> installing the Node gRPC interop client (tests/interop/node)"
npm ci --prefix tests/interop/node --no-audit --no-fund --loglevel=error

results="$(mktemp -d)"
trap 'rm -rf "$results"' EXIT

echo "==> dotnet test Kobo.Sync.sln"
set +e
dotnet test Kobo.Sync.sln --configuration Release \
  --logger "trx;LogFilePrefix=kobo-sync" --results-directory "$results" "$@"
status=$?
set -e

passed=0 failed=0 skipped=0
for trx in "$results"/*.trx; do
  [ -e "$trx" ] || continue
  counters="$(grep -o '<Counters [^>]*>' "$trx" | head -1)"
  count() { echo "$counters" | sed -n "s/.* $1=\"\([0-9]*\)\".*/\1/p"; }
  passed=$((passed + $(count passed)))
  failed=$((failed + $(count failed)))
  # xunit's skipped tests count as neither passed nor failed: total minus executed.
  skipped=$((skipped + $(count total) - $(count executed)))
done

if [ "$passed" -eq 0 ] && [ "$status" -eq 0 ]; then
  echo "error: no test ran" >&2
  status=1
fi
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
  echo "error: dotnet test failed before its tests could report (a build error or a crashed test host; see above)" >&2
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
exit "$status"
