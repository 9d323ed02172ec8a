# Sourced by the conformance server scripts: serves examples/conformance on a free loopback port.
#   start_fixture [ARGS…]   starts the fixture with serve.ts's ARGS (--json: JSON-response mode; --skills DIR), waits until it accepts
#                           connections, prints its URL and log, sets FIXTURE_URL; returns 1 if it did not start
#   stop_fixture            stops it; also run when the sourcing shell exits
# Needs ROOT (the repository) set by the caller.

FIXTURE_PID=
FIXTURE_URL=

start_fixture() {
  local log_dir
  log_dir=$(mktemp -d -t conformance-fixture.XXXXXX)
  FIXTURE_LOG=$log_dir/fixture.log
  # Port 0: the fixture takes a free port and prints its URL once it accepts connections.
  (cd "$ROOT" && exec node --import tsx examples/conformance/serve.ts --port 0 "$@") >"$FIXTURE_LOG" 2>&1 &
  FIXTURE_PID=$!
  trap stop_fixture EXIT

  for _ in $(seq 1 200); do
    FIXTURE_URL=$(grep -oE 'http://127\.0\.0\.1:[0-9]+/mcp' "$FIXTURE_LOG" | head -1)
    [ -n "$FIXTURE_URL" ] && break
    kill -0 "$FIXTURE_PID" 2>/dev/null || break
    sleep 0.05
  done
  if [ -z "$FIXTURE_URL" ]; then
    echo "The fixture server did not start; its output ($FIXTURE_LOG):" >&2
    cat "$FIXTURE_LOG" >&2
    return 1
  fi
  echo "fixture: $FIXTURE_URL${*:+ ($*)}; log: $FIXTURE_LOG"
}

stop_fixture() {
  [ -n "$FIXTURE_PID" ] || return 0
  kill "$FIXTURE_PID" 2>/dev/null && wait "$FIXTURE_PID" 2>/dev/null
  FIXTURE_PID=
  trap - EXIT
}
