#!/usr/bin/env bash
# Runs the whole Kobo.Sync test suite from a clean checkout.
# Installs the Terraform parser the deploy tests use (npm), builds, runs every test project in two
# test processes side by side (the service's tests that run in parallel, then the deploy and domain
# tests; beside them the service's tests that run alone, then the simulator's), and ends with one summary
# line: "tests: N passed, N failed, N skipped".
# Extra arguments go to one `dotnet test` of the whole solution (for example: --filter "FullyQualifiedName~Deploy").
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

echo "==> dotnet build Kobo.Sync.sln"
dotnet build Kobo.Sync.sln --configuration Release -v q -nologo

# tests PREFIX ARGS...: one test run of ARGS (built above), its results beside the others'.
tests() {
  local prefix=$1
  shift
  dotnet test "$@" --configuration Release --no-build --logger "trx;LogFilePrefix=$prefix" --results-directory "$results"
}

set +e
if [ $# -gt 0 ]; then
  echo "==> dotnet test Kobo.Sync.sln $*"
  tests kobo-sync Kobo.Sync.sln "$@"
  status=$?
else
  # Two test processes side by side. The service's classes that must not share their process with another
  # class's service (trait Runs=Alone: measured alone, telemetry, rolling upgrades) run one after another,
  # which leaves a core idle: they get a process of their own, beside the one that runs the rest in parallel.
  echo "==> dotnet test: the service's tests in parallel, then the deploy, domain and architecture tests (lines marked"
  echo "    [parallel]), beside the service's tests that run alone, then the simulator's"
  (
    code=0
    tests parallel tests/SyncApi.Tests --filter "Runs!=Alone" || code=1
    tests deploy tests/Deploy.Tests || code=1
    tests domain tests/Domain.Tests || code=1
    tests architecture tests/Architecture.Tests || code=1
    echo "$code" >"$results/parallel.code"
  ) 2>&1 | sed -u 's/^/[parallel] /' &
  parallel=$!
  code=0
  tests alone tests/SyncApi.Tests --filter "Runs=Alone" || code=1
  tests simulator tests/DeviceSimulator.Tests || code=1
  wait "$parallel"
  status=0
  if [ "$code" -ne 0 ] || [ "$(cat "$results/parallel.code" 2>/dev/null)" != 0 ]; then status=1; fi
fi
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
