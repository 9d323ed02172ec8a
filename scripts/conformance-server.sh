#!/usr/bin/env bash
# Runs the official MCP conformance server suite (--suite all) against the fixture in examples/conformance.
#   usage: scripts/conformance-server.sh [--json]
#   --json  run the fixture in JSON-response mode
# Needs the shared harness at <repo>/../shared/conformance and the pinned CLI with Node 22 in
# tools/conformance. Prints run-server.sh's output (last line "N passed, M failed") and exits with its status.
set -uo pipefail

JSON_FLAG=()
for arg in "$@"; do
  case $arg in
    --json) JSON_FLAG=(--json) ;;
    *) echo "usage: $0 [--json]" >&2; exit 2 ;;
  esac
done

ROOT=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel) || exit 2
SHARED=$(cd "$ROOT/.." && pwd)/shared/conformance
if ! [ -f "$SHARED/run-server.sh" ]; then
  echo "No conformance harness at $SHARED/run-server.sh: put a copy of shared/ beside the repository." >&2
  exit 2
fi

export CONFORMANCE_DIR=$ROOT/tools/conformance
export NODE22_BIN=$CONFORMANCE_DIR/node_modules/.bin/node

source "$ROOT/scripts/conformance-fixture.sh"
start_fixture "${JSON_FLAG[@]}" || exit 1

bash "$SHARED/run-server.sh" "$FIXTURE_URL" --suite all
STATUS=$?
stop_fixture
exit "$STATUS"
