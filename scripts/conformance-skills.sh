#!/usr/bin/env bash
# Runs the Skills extension's scenarios (SEP-2640) of the conformance suite 0.2.0-alpha.12, which no
# requirement set lists (so the --requirements legs never run them), each at both revisions' wire
# (--spec-version R --force):
#   server: sep-2640-skills-enumeration, -manifest, -directory against examples/conformance serving
#           examples/conformance/skills (--skills), with SSE responses and again with JSON responses;
#   client: sep-2640-client-no-prefetch, -verify-digest, -verify-size, -verify-frontmatter against
#           examples/conformance/client.ts (client-skills.ts).
#   usage: scripts/conformance-skills.sh
# A scenario passes when the CLI exits 0 and its summary has no failure and no warning (the SHOULDs of the
# extension are held to). Prints one line per run, then "N passed, M failed"; exits 0 iff none failed.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/conformance-next-cli.sh"
need_loopback
OUT_DIR=${OUT_DIR:-$(mktemp -d -t conformance-skills.XXXXXX)}
mkdir -p "$OUT_DIR"
source "$ROOT/scripts/conformance-fixture.sh"

PASSED=0
FAILED=0
# run NAME LOG COMMAND...: runs one scenario, prints its verdict line, counts it.
run() {
  local name=$1 log=$2
  shift 2
  local status=0
  timeout -k 5 120 "$@" >"$log" 2>&1 || status=$?
  if [ "$status" -eq 0 ] && grep -qE '^Passed: [0-9]+/[0-9]+, 0 failed, 0 warnings' "$log"; then
    PASSED=$((PASSED + 1))
    echo "  ✓ $name: $(grep -E '^Passed: ' "$log" | tail -1)"
  else
    FAILED=$((FAILED + 1))
    echo "  ✗ $name (exit $status; $log):"
    grep -E 'FAILURE|WARNING|Passed:|Error' "$log" | sed 's/^/      /' | head -20
  fi
}

for mode in sse json; do
  if [ "$mode" = json ]; then start_fixture --json --skills examples/conformance/skills; else start_fixture --skills examples/conformance/skills; fi || {
    echo "0 passed, 1 failed"
    exit 1
  }
  for revision in "${REVISIONS[@]}"; do
    echo "== server scenarios, $mode responses, at $revision"
    for scenario in sep-2640-skills-enumeration sep-2640-skills-manifest sep-2640-skills-directory; do
      run "$scenario [$revision, $mode]" "$OUT_DIR/$scenario-$revision-$mode.log" \
        "$NODE22" "$CLI" server --url "$FIXTURE_URL" --scenario "$scenario" --spec-version "$revision" --force
    done
  done
  stop_fixture
done

cd "$ROOT"
for revision in "${REVISIONS[@]}"; do
  echo "== client scenarios at $revision"
  for scenario in sep-2640-client-no-prefetch sep-2640-client-verify-digest sep-2640-client-verify-size sep-2640-client-verify-frontmatter; do
    # The CLI's mock servers listen on every interface; the shared preload binds them to 127.0.0.1.
    run "$scenario [$revision]" "$OUT_DIR/$scenario-$revision.log" env NODE_OPTIONS="--require $SHARED_DIR/loopback.cjs" \
      "$NODE22" "$CLI" client --command "exec node --import tsx $ROOT/examples/conformance/client.ts" \
      --scenario "$scenario" --spec-version "$revision" --force
  done
done

echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ] && [ "$PASSED" -gt 0 ]
