#!/usr/bin/env bash
# Runs the official MCP conformance client scenarios against the fixture client in examples/conformance:
# those that need no authorization one by one (initialize, tools_call, elicitation-sep1034-client-defaults,
# sse-retry), then the auth suite (14 scenarios of OAuth 2.1 authorization), the draft suite (3: a resource
# that names another server, SEP-2207's refresh tokens) and the backcompat suite (2: 2025-03-26 servers
# without Protected Resource Metadata), the way the shared run-client.sh does.
#   usage: scripts/conformance-client.sh [extra conformance args, e.g. --verbose]
# Needs the shared harness at <repo>/../shared/conformance and the pinned CLI with Node 22 in
# tools/conformance. Last line: "N passed, M failed" (scenarios); exit 0 iff all of them passed.
set -uo pipefail

SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)
SUITES=(auth draft backcompat)
# Scenarios in all: the four above, 14 in auth, 3 in draft, 2 in backcompat.
EXPECTED=23

ROOT=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel) || exit 2
SHARED=$(cd "$ROOT/.." && pwd)/shared/conformance
if ! [ -f "$SHARED/common.sh" ]; then
  echo "No conformance harness at $SHARED/common.sh: put a copy of shared/ beside the repository." >&2
  exit 2
fi

export CONFORMANCE_DIR=$ROOT/tools/conformance
export NODE22_BIN=$CONFORMANCE_DIR/node_modules/.bin/node
# Sets CLI, HERE and OUT_DIR, and defines tally and close_log (or prints how to get the CLI and exits).
source "$SHARED/common.sh"

# The CLI splits the command on spaces and runs it through /bin/sh with the server URL appended; exec
# lets its timeout kill reach the client itself. `--import tsx` resolves from the working directory.
cd "$ROOT" || exit 2
CMD="exec node --import tsx $ROOT/examples/conformance/client.ts"
# A suite starts all its clients at once (14 node+tsx processes for auth); on a small busy machine the CLI's
# 30 s default and the fixture's 15 s request bound are not enough, so both are raised (a hang still fails).
MS=${CLIENT_TIMEOUT_MS:-120000}
export FIXTURE_REQUEST_TIMEOUT_MS=$((MS / 2))

passed=0 failed=0 checks_passed=0 checks_failed=0 warnings=0
run() { # run LOG ARGS...: one CLI run, then add its tally to the totals
  local log=$1
  shift
  # The outer timeout kills the whole process group should the CLI hang (see FIXTURE.md §2.1).
  timeout -k 5 $((MS / 1000 + 30)) "$NODE22_BIN" --require "$HERE/loopback.cjs" "$CLI" \
    client --command "$CMD" --timeout "$MS" -o "$OUT_DIR" "$@" 2>&1 | tee -a "$log"
  close_log "$log" 'OVERALL: '
  read -r sp sf cp cf cw < <(tally client "$log")
  passed=$((passed + sp)) failed=$((failed + sf))
  checks_passed=$((checks_passed + cp)) checks_failed=$((checks_failed + cf)) warnings=$((warnings + cw))
}
for s in "${SCENARIOS[@]}"; do
  echo "=== scenario $s" | tee "$OUT_DIR/client-$s.log"
  run "$OUT_DIR/client-$s.log" --scenario "$s" "$@"
done
for suite in "${SUITES[@]}"; do
  echo "=== suite $suite" | tee "$OUT_DIR/suite-$suite.log"
  run "$OUT_DIR/suite-$suite.log" --suite "$suite" "$@"
done

echo "results: $OUT_DIR"
echo "checks: $checks_passed passed, $checks_failed failed, $warnings warnings"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq "$EXPECTED" ]
