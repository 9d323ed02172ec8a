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

LOG_DIR=$(mktemp -d -t conformance-fixture.XXXXXX)
FIXTURE_LOG=$LOG_DIR/fixture.log
cd "$ROOT" || exit 2
# Port 0: the fixture takes a free port and prints its URL once it accepts connections.
node --import tsx examples/conformance/serve.ts --port 0 "${JSON_FLAG[@]}" >"$FIXTURE_LOG" 2>&1 &
FIXTURE_PID=$!
stop_fixture() {
  kill "$FIXTURE_PID" 2>/dev/null && wait "$FIXTURE_PID" 2>/dev/null
}
trap stop_fixture EXIT

URL=
for _ in $(seq 1 200); do
  URL=$(grep -oE 'http://127\.0\.0\.1:[0-9]+/mcp' "$FIXTURE_LOG" | head -1)
  [ -n "$URL" ] && break
  if ! kill -0 "$FIXTURE_PID" 2>/dev/null; then break; fi
  sleep 0.05
done
if [ -z "$URL" ]; then
  echo "The fixture server did not start; its output ($FIXTURE_LOG):" >&2
  cat "$FIXTURE_LOG" >&2
  exit 1
fi
echo "fixture: $URL${JSON_FLAG[*]:+ (JSON responses)}; log: $FIXTURE_LOG"

bash "$SHARED/run-server.sh" "$URL" --suite all
STATUS=$?
stop_fixture
trap - EXIT
exit "$STATUS"
