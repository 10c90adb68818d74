#!/usr/bin/env bash
# End-to-end tests of `tracescope view` in Debian's chromium (playwright-core):
#  - page.test.mjs: the page's behaviour on a demo fixture from a mock server;
#  - analysis-page.test.mjs: range table, profile, objects on the mock server;
#  - examples.test.mjs: every ../shared/examples file opened by the real binary;
#  - analysis.test.mjs: range, select-all, profiles and objects of the examples;
#  - aggregate.test.mjs: call trees, flame graph and sandwich of slices, search over
#    every field with its list, exact details (tests/fixtures/aggregate-*.json).
# Screenshots go to artifacts/screenshots/ at the repository root.
# Needs: chromium (apt-get install chromium), node >= 20, cargo.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
export SCREENSHOTS="$ROOT/artifacts/screenshots"
export TRACESCOPE="${TRACESCOPE:-$ROOT/target/debug/tracescope}"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"

if [ ! -x "$CHROMIUM" ]; then
  echo "e2e: $CHROMIUM missing (apt-get install -y chromium)" >&2
  exit 1
fi
if [ "${TRACESCOPE_SKIP_BUILD:-0}" != 1 ]; then
  (cd "$ROOT" && cargo build -q -p tracescope)
fi
cd "$HERE"
[ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund
mkdir -p "$SCREENSHOTS"
if [ "$#" -eq 0 ]; then set -- page.test.mjs analysis-page.test.mjs examples.test.mjs analysis.test.mjs aggregate.test.mjs; fi
node --test --test-concurrency=1 "$@"
