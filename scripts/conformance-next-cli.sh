# Sourced by the conformance-*-next.sh scripts: finds the alpha.12 CLI and the Node 22 that runs it under
# tools/conformance, and stops (printing the "0 passed, 0 failed" verdict line) when either is missing or the
# installed CLI is not the version those scripts were written for. Sets ROOT, NODE22, CLI, PINNED, REVISIONS.
ROOT=$(git -C "$(dirname "${BASH_SOURCE[0]}")" rev-parse --show-toplevel) || exit 2
NODE22=$ROOT/tools/conformance/node_modules/.bin/node
CLI=$ROOT/tools/conformance/node_modules/conformance-next/dist/index.js
PINNED=0.2.0-alpha.12
REVISIONS=(2026-07-28 2025-11-25)

if ! [ -x "$NODE22" ] || ! [ -f "$CLI" ]; then
  echo "No Node 22 or conformance CLI under tools/conformance: run npm ci --prefix tools/conformance" >&2
  echo "0 passed, 0 failed"
  exit 2
fi
VERSION=$("$NODE22" "$CLI" --version)
if [ "$VERSION" != "$PINNED" ]; then
  echo "tools/conformance has conformance-next $VERSION; this script was written for $PINNED" >&2
  echo "0 passed, 0 failed"
  exit 2
fi

# need_loopback: the client legs' mock servers listen on every interface; the shared preload
# ($SHARED_DIR/loopback.cjs, default <repo>/../shared/conformance) binds them to 127.0.0.1. Sets SHARED_DIR, or
# stops with the verdict line when it is missing.
need_loopback() {
  SHARED_DIR=${SHARED_DIR:-$(cd "$ROOT/.." && pwd)/shared/conformance}
  if ! [ -f "$SHARED_DIR/loopback.cjs" ]; then
    echo "No $SHARED_DIR/loopback.cjs: put shared/ beside the repository or set SHARED_DIR" >&2
    echo "0 passed, 0 failed"
    exit 2
  fi
}
