#!/usr/bin/env bash
# Runs the server legs of the official MCP conformance suite 0.2.0-alpha.12 that a dual-era server must
# pass on ONE endpoint: `--requirements 2026-07-28`, then `--requirements 2025-11-25`, both against one
# start of the fixture in examples/conformance.
#   usage: scripts/conformance-server-next.sh [--json]
#   --json  run the fixture in JSON-response mode
#   env:    OUT_DIR (results; default a fresh /tmp dir), RUN_TIMEOUT_S (per leg, default 600)
# Needs `npm ci --prefix tools/conformance` (the CLI as the alias conformance-next, and node@22).
# Prints each leg's output and verdict, then "N passed, M failed" over the scored scenarios of both legs
# (the requirement sets' not-scored extension/pending scenarios are reported apart and never fail the run,
# except the Tasks extension's tasks-* scenarios: mcpwire implements the extension, so they count as scored).
# Exits 0 iff nothing scored failed, nothing went unreported and something passed.
set -uo pipefail

FIXTURE_ARGS=()
for arg in "$@"; do
  case $arg in
    --json) FIXTURE_ARGS=(--json) ;;
    *) echo "usage: $0 [--json]" >&2; exit 2 ;;
  esac
done

source "$(dirname "${BASH_SOURCE[0]}")/conformance-next-cli.sh"

OUT_DIR=${OUT_DIR:-$(mktemp -d -t conformance-next.XXXXXX)}
mkdir -p "$OUT_DIR"

# Not-scored scenarios that count as scored here: the extensions mcpwire implements.
MUST_PASS='^tasks-'

# tally LOG -> "PASSED FAILED UNSCORED_PASSED UNSCORED_FAILED", scored scenarios only. The CLI prints
# "Running requirements R (K scenarios)", then a summary line "✓|✗ name: P passed, F failed" per
# scenario it finished, then the indented "  ✓|✗ name (reason)" lines of the scenarios not scored.
# Scenarios without a summary line (a crash, a timeout) count as failed.
tally() {
  awk -v must="$MUST_PASS" '
    /^Running requirements [^ ]+ \([0-9]+ scenarios\)/ { want = substr($4, 2) + 0 }
    /^=== SUMMARY ===/ { summary = 1 }
    summary && /^(✓|✗) [^ ]+: [0-9]+ passed, [0-9]+ failed/ { name = $2; sub(/:$/, "", name); verdict[name] = $1; seen++ }
    /^  (✓|✗) [^ ]+ \(/ { if ($2 !~ must) unscored[$2] = 1 }
    END {
      for (name in verdict) {
        if (name in unscored) { if (verdict[name] == "✓") up++; else uf++ }
        else if (verdict[name] == "✓") p++; else f++
      }
      if (want > seen) f += want - seen
      printf "%d %d %d %d\n", p, f, up, uf
    }' "$1"
}

source "$ROOT/scripts/conformance-fixture.sh"
start_fixture "${FIXTURE_ARGS[@]}" || { echo "0 passed, 0 failed"; exit 1; }

TOTAL_P=0
TOTAL_F=0
VERDICTS=()
for revision in "${REVISIONS[@]}"; do
  log=$OUT_DIR/server-$revision.log
  echo "== conformance $PINNED server --requirements $revision against $FIXTURE_URL"
  timeout -k 5 "${RUN_TIMEOUT_S:-600}" "$NODE22" "$CLI" server --url "$FIXTURE_URL" \
    --requirements "$revision" -o "$OUT_DIR/$revision" 2>&1 | tee "$log"
  cli_status=${PIPESTATUS[0]}
  read -r p f up uf < <(tally "$log")
  # The CLI's exit status fails on a scored FAILURE (not on a tasks-* one: the tally counts those); the tally
  # also catches a run that died early.
  if [ "$cli_status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  failing=$(awk '/^=== SUMMARY ===/{s=1} s && /^✗ /{n=$2; sub(/:$/,"",n); print n}' "$log" |
    grep -vxF -f <(sed -nE 's/^  ✗ ([^ ]+) \(.*/\1/p' "$log" | grep -vE "$MUST_PASS") | paste -sd ' ' -)
  VERDICTS+=("$revision: $p passed, $f failed (scored)${failing:+; failing: $failing}; not scored: $up passed, $uf failed")
  TOTAL_P=$((TOTAL_P + p))
  TOTAL_F=$((TOTAL_F + f))
done
stop_fixture

echo
printf '%s\n' "${VERDICTS[@]}"
echo "results: $OUT_DIR"
echo "$TOTAL_P passed, $TOTAL_F failed"
[ "$TOTAL_F" -eq 0 ] && [ "$TOTAL_P" -gt 0 ]
