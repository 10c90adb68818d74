#!/usr/bin/env bash
# End-to-end tests of `tracescope view` in Debian's chromium (playwright-core):
#  - page.test.mjs: the page's behaviour on a demo fixture from a mock server;
#  - analysis-page.test.mjs: range table, profile, objects on the mock server;
#  - fixtures.test.mjs: the repository's fixtures opened by the real binary (what is
#    drawn, details, keys, search, the diagnostics badge by severity);
#  - fixtures-analysis.test.mjs: range, select-all, profiles, objects and counters of
#    the fixtures;
#  - examples.test.mjs, analysis.test.mjs: the same on the format guides' examples and
#    a corpus trace in ../shared (corpus tier: each test skipped, saying so, without it).
#  - multi.test.mjs: several traces on one timeline (tests/fixtures/multi).
#  - workbench.test.mjs: track layout, pin, hide, filter, drag, instants, filmstrip,
#    URL hash, theme, export, empty and objects-only traces, on tests/fixtures/timeline.
#  - aggregate.test.mjs: call trees, flame graph and sandwich of slices, search over
#    every field with its list, exact details (tests/fixtures/aggregate-*.json).
#  - frames.test.mjs: a frame after pans, zooms and scrolls equals a full redraw
#    (every pixel painted; device pixel ratios 1 and 1.5); a scroll only moves them.
#  - compare.test.mjs, query.test.mjs, token.test.mjs: the compare view, the Query
#    tab, the server's token.
# Without arguments every *.test.mjs here runs (none can be left out by accident).
# Screenshots go to artifacts/screenshots/ at the repository root.
# Needs: chromium (apt-get install chromium), node >= 20, cargo.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
export SCREENSHOTS="$ROOT/artifacts/screenshots"
TARGET="${CARGO_TARGET_DIR:-target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac
export TRACESCOPE="${TRACESCOPE:-$TARGET/debug/tracescope}"
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
if [ "$#" -eq 0 ]; then
  set -- *.test.mjs
fi
node --test --test-concurrency=1 "$@"
