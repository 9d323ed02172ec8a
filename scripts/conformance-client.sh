#!/usr/bin/env bash
# Runs the official MCP conformance client scenarios that need no authorization (initialize, tools_call,
# elicitation-sep1034-client-defaults, sse-retry) against the fixture client in examples/conformance.
#   usage: scripts/conformance-client.sh [extra conformance args, e.g. --verbose]
# Needs the shared harness at <repo>/../shared/conformance and the pinned CLI with Node 22 in
# tools/conformance. The shared run-client.sh always adds the auth suite, which this client does not
# implement, so the scenarios are run here one by one the way run-client.sh runs them, with its helpers.
# Last line: "N passed, M failed" (scenarios); exit 0 iff all of them passed.
set -uo pipefail

SCENARIOS=(initialize tools_call elicitation-sep1034-client-defaults sse-retry)

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
MS=${CLIENT_TIMEOUT_MS:-30000}

passed=0 failed=0 checks_passed=0 checks_failed=0 warnings=0
for s in "${SCENARIOS[@]}"; do
  log=$OUT_DIR/client-$s.log
  echo "=== scenario $s" | tee "$log"
  # The outer timeout kills the whole process group should the CLI hang (see FIXTURE.md §2.1).
  timeout -k 5 $((MS / 1000 + 30)) "$NODE22_BIN" --require "$HERE/loopback.cjs" "$CLI" \
    client --command "$CMD" --timeout "$MS" -o "$OUT_DIR" --scenario "$s" "$@" 2>&1 | tee -a "$log"
  close_log "$log" 'OVERALL: '
  read -r sp sf cp cf cw < <(tally client "$log")
  passed=$((passed + sp)) failed=$((failed + sf))
  checks_passed=$((checks_passed + cp)) checks_failed=$((checks_failed + cf)) warnings=$((warnings + cw))
done

echo "results: $OUT_DIR"
echo "checks: $checks_passed passed, $checks_failed failed, $warnings warnings"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -eq "${#SCENARIOS[@]}" ]
