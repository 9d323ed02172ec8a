#!/usr/bin/env bash
# Runs the client legs of the official MCP conformance suite 0.2.0-alpha.12 against the fixture client
# examples/conformance/client.ts: `--requirements 2026-07-28`, then `--requirements 2025-11-25` (each the
# frozen set of client scenarios that revision requires, auth/* included, at that revision's wire; the
# CLI sets MCP_CONFORMANCE_PROTOCOL_VERSION to the revision). See examples/conformance/FIXTURE-CLIENT-2026.md.
#   usage: scripts/conformance-client-next.sh [--allow-warnings]
#   --allow-warnings  a WARNING alone does not fail a scenario (the CLI's exit status ignores them; its
#                     summary marks and single-scenario OVERALL count them, and so does this by default)
#   env:      OUT_DIR (results; default a fresh /tmp dir), CLIENT_TIMEOUT_MS (per scenario, default
#             120000: a leg starts all its clients at once), RUN_TIMEOUT_S (per leg, default 600),
#             SHARED_DIR (the shared harness, for loopback.cjs; default <repo>/../shared/conformance)
# Needs `npm ci --prefix tools/conformance` (the CLI as the alias conformance-next, and node@22).
# No expected-failures file: nothing in either set is out of scope for this client.
# Verdict per scored scenario, read from its checks.json under -o: failed when it has a FAILURE (what the
# CLI's exit status counts) or a WARNING (request-metadata's missing retry or clientInfo is only that),
# when it left no checks.json (a crash or a leg timeout), or when none of its checks is a SUCCESS (a
# client that sent nothing leaves http-standard-headers all SKIPPED, which the CLI passes). Unscored
# scenarios (extension, added-after-release) are reported and never fail the run.
# Prints one line per leg, then "N passed, M failed" over the scored scenarios of both legs; exits 0 iff
# nothing scored failed and something passed.
set -euo pipefail

STRICT=1
for arg in "$@"; do
  case $arg in
    --allow-warnings) STRICT=0 ;;
    *) echo "usage: $0 [--allow-warnings]" >&2; exit 2 ;;
  esac
done

source "$(dirname "${BASH_SOURCE[0]}")/conformance-next-cli.sh"
need_loopback

OUT_DIR=${OUT_DIR:-$(mktemp -d -t conformance-client-next.XXXXXX)}
mkdir -p "$OUT_DIR"
MS=${CLIENT_TIMEOUT_MS:-120000}
# A leg starts all its clients and mocks at once, so a request may wait long for a busy CPU: the fixture
# bounds each of its requests at half the scenario's time (its own default, 15 s, suits one at a time).
export FIXTURE_REQUEST_TIMEOUT_MS=$((MS / 2))
# The CLI runs the command through /bin/sh with the server URL appended; exec lets its timeout kill
# reach the client itself. `--import tsx` resolves from the working directory.
cd "$ROOT"
CMD="exec node --import tsx $ROOT/examples/conformance/client.ts"

# scenarios REVISION scored|unscored: the client scenario names `list --requirements` gives.
scenarios() {
  "$NODE22" "$CLI" list --requirements "$1" | awk -v want="$2" '
    /^Client scenarios/ { client = 1; next }
    client && /^  - / { if (want == "scored") print $2; next }
    client && /^$/ { client = 0 }
    /^    - .* \[client\]$/ { if (want == "unscored") print $2 }'
}

# results verdicts DIR STRICT NAME... -> one "name verdict passed failed warnings" line per name, verdict being
#   pass, fail, vacuous (no SUCCESS), warn (a WARNING, unless STRICT is 0) or unreported (no checks.json).
# results failures DIR NAME... -> per name, its FAILURE and WARNING checks, so the CI log says what failed.
# The CLI writes DIR/<name>-<ISO time>/checks.json (an auth/x scenario under DIR/auth/).
results() {
  "$NODE22" - "$@" <<'EOF'
const fs = require('node:fs');
const path = require('node:path');
const [mode, dir, ...rest] = process.argv.slice(2);
/** The checks scenario `name` left, or undefined when it left none (or more than one run of it). */
function checksOf(name) {
  const parent = path.join(dir, path.dirname(name));
  const prefix = `${path.basename(name)}-`;
  const runs = fs.existsSync(parent)
    ? fs.readdirSync(parent).filter((d) => d.startsWith(prefix) && /^\d{4}-\d\d-\d\dT/.test(d.slice(prefix.length)))
    : [];
  const file = runs.length === 1 ? path.join(parent, runs[0], 'checks.json') : undefined;
  return file !== undefined && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : undefined;
}
if (mode === 'verdicts') {
  const [strict, ...names] = rest;
  for (const name of names) {
    const checks = checksOf(name);
    if (checks === undefined) { console.log(`${name} unreported 0 0 0`); continue; }
    const count = (status) => checks.filter((c) => c.status === status).length;
    const [p, f, w] = [count('SUCCESS'), count('FAILURE'), count('WARNING')];
    const verdict = f > 0 ? 'fail' : p === 0 ? 'vacuous' : w > 0 && strict === '1' ? 'warn' : 'pass';
    console.log(`${name} ${verdict} ${p} ${f} ${w}`);
  }
} else {
  for (const name of rest) {
    console.log(`--- ${name}`);
    const checks = checksOf(name) ?? [];
    for (const c of checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'))
      console.log(`${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
  }
}
EOF
}

TOTAL_P=0
TOTAL_F=0
SUMMARY=()
for revision in "${REVISIONS[@]}"; do
  mapfile -t scored < <(scenarios "$revision" scored)
  mapfile -t unscored < <(scenarios "$revision" unscored)
  dir=$OUT_DIR/$revision
  log=$OUT_DIR/client-$revision.log
  rm -rf "$dir"
  echo "== conformance $PINNED client --requirements $revision (${#scored[@]} scored, ${#unscored[@]} not) against examples/conformance/client.ts"
  cli_status=0
  timeout -k 5 "${RUN_TIMEOUT_S:-600}" "$NODE22" --require "$SHARED_DIR/loopback.cjs" "$CLI" client \
    --command "$CMD" --requirements "$revision" --timeout "$MS" -o "$dir" >"$log" 2>&1 || cli_status=$?
  sed -n '/^=== SUITE SUMMARY ===/,$p' "$log"

  p=0 f=0 failing=() warned=()
  if [ "${#scored[@]}" -eq 0 ]; then failing+=("(no scored scenarios listed)"); fi
  while read -r name verdict _ _ warnings; do
    [ "$warnings" -gt 0 ] && warned+=("$name")
    if [ "$verdict" = pass ]; then p=$((p + 1)); else f=$((f + 1)) failing+=("$name($verdict)"); fi
  done < <(results verdicts "$dir" "$STRICT" "${scored[@]}")
  up=0 uf=0
  while read -r _ verdict _ _ _; do
    if [ "$verdict" = pass ]; then up=$((up + 1)); else uf=$((uf + 1)); fi
  done < <(results verdicts "$dir" 0 "${unscored[@]}")
  # The CLI exits 1 iff a scored scenario has a FAILURE; anything else non-zero is a crash or a timeout.
  if [ "$cli_status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1 failing+=("(CLI exit status $cli_status)"); fi
  if [ "${#scored[@]}" -eq 0 ]; then f=$((f + 1)); fi

  named=()
  for entry in "${failing[@]}"; do [[ $entry == '('* ]] || named+=("${entry%(*}"); done
  if [ "${#named[@]}" -gt 0 ]; then
    echo "--- the CLI's log up to its summary (exit codes, timeouts, the stderr of each client that failed)"
    sed '/^=== SUITE SUMMARY ===/,$d' "$log"
    results failures "$dir" "${named[@]}"
  fi
  line="client $revision: $p passed, $f failed of ${#scored[@]} scored"
  [ "${#failing[@]}" -gt 0 ] && line+="; failing: ${failing[*]}"
  [ "${#warned[@]}" -gt 0 ] && line+="; warnings in: ${warned[*]}"
  line+="; not scored: $up passed, $uf failed"
  SUMMARY+=("$line")
  TOTAL_P=$((TOTAL_P + p))
  TOTAL_F=$((TOTAL_F + f))
done

echo
printf '%s\n' "${SUMMARY[@]}"
echo "results: $OUT_DIR (client-<revision>.log, <revision>/<scenario>-<time>/checks.json, stdout.txt, stderr.txt)"
echo "$TOTAL_P passed, $TOTAL_F failed"
[ "$TOTAL_F" -eq 0 ] && [ "$TOTAL_P" -gt 0 ]
