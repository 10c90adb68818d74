import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLayout, NO_OPTIONS } from '../layout.js';
import { tracksUnder, rangeTracks, profileTracks, rangeOf, allTracks } from '../range.js';
import { hitSnapshot } from '../snapshots.js';

/** Two processes: p0 with a counter and thread 0 (slices + samples), p1 with thread 1. */
function summary() {
  const tr = (/** @type {string} */ id, /** @type {any} */ kind, rows = 1) => ({ id, kind, name: id, rows });
  return /** @type {import('../types.js').Summary} */ ({
    name: 't', format: 'json', bytes: 0, events: 0, start_ns: 0, end_ns: 100, display_time_unit: null,
    processes: [
      { id: 0, pid: 1, name: null, label: 'P1', sort_index: null, labels: null, frame_url: null, tracks: [tr('c:0', 'counter'), tr('o:0', 'objects')],
        threads: [{ id: 0, tid: 1, name: null, label: 'T1', tracks: [tr('s:0:0', 'slices', 2), tr('p:0', 'samples', 3)] }] },
      { id: 1, pid: 2, name: null, label: 'P2', sort_index: null, labels: null, frame_url: null, tracks: [],
        threads: [{ id: 1, tid: 2, name: null, label: 'T2', tracks: [tr('s:1:0', 'slices')] }] },
    ],
    global_instants: { ts: [], name: [], id: [] }, diagnostics: [], stats: {},
  });
}

test('a drag covers the tracks it touches; all of them is null', () => {
  const s = summary();
  const { rows } = buildLayout(s);
  const y = (/** @type {string} */ id) => /** @type {any} */ (rows.find((r) => r.track?.id === id)).y;
  assert.deepEqual(tracksUnder(rows, s, y('s:0:0') + 3, y('s:0:0') + 5), ['s:0:0']);
  assert.deepEqual(tracksUnder(rows, s, y('p:0') + 2, y('s:0:0') + 1), ['s:0:0', 'p:0']);
  // Rows: P1, its thread's s:0:0 and p:0, then its counter and objects; P2, s:1:0.
  assert.deepEqual(tracksUnder(rows, s, y('c:0') + 1, y('s:1:0') + 1), ['c:0', 'o:0', 's:1:0']);
  assert.equal(tracksUnder(rows, s, 0, 10_000), null);
  assert.deepEqual(allTracks(s), ['c:0', 'o:0', 's:0:0', 'p:0', 's:1:0']);
});

test('a folded process header under the drag brings all its tracks', () => {
  const s = summary();
  const { rows } = buildLayout(s, { ...NO_OPTIONS, folds: { P0: true } });
  assert.deepEqual(tracksUnder(rows, s, 2, 3), ['c:0', 'o:0', 's:0:0', 'p:0']);
});

test('range requests take slices, samples and counter tracks only', () => {
  assert.deepEqual(rangeTracks(['c:0', 'o:0', 'a:3', 's:0:1', 'p:0']), ['c:0', 's:0:1', 'p:0']);
  assert.equal(rangeTracks(null), null);
});

test('a thread under the drag brings its samples track to the profile', () => {
  const p = new Set(['p:0', 'p:4']);
  assert.deepEqual(profileTracks(['s:0:0', 's:0:1', 'p:0', 's:1:0', 'c:0'], p), ['p:0']);
  assert.deepEqual(profileTracks(['s:1:0'], p), []);
  assert.deepEqual(profileTracks(['p:4'], p), ['p:4']);
  assert.equal(profileTracks(null, p), null);
});

test('M makes the range of the selection; an instant gets one ns', () => {
  assert.deepEqual(rangeOf({ ts: 100, dur: 50 }), { t0: 100, t1: 150, tracks: null });
  assert.deepEqual(rangeOf({ ts: 100, dur: 0 }), { t0: 100, t1: 101, tracks: null });
});

test('snapshot markers are hit near their time on their row only', () => {
  const s = { ts: [100, 200, 205], row: [0, 0, 1], object: [3, 3, 4], index: [0, 1, 0] };
  assert.equal(hitSnapshot(s, 0, 104, 5), 0);
  assert.equal(hitSnapshot(s, 0, 106, 5), -1);
  assert.equal(hitSnapshot(s, 0, 203, 5), 1);
  assert.equal(hitSnapshot(s, 1, 203, 5), 2);
  assert.equal(hitSnapshot(s, 2, 200, 5), -1);
});
