import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLayout, rowIndexAt, visibleRows, HEADER_H, ROW_H, TRACK_PAD, EMPTY_H, COUNTER_H, processLabel } from '../layout.js';

/** @returns {any} */
function summary() {
  return {
    processes: [
      { id: 0, pid: 1, name: 'Browser', label: 'Browser (pid 1)', labels: 'a,b', frame_url: 'https://x/',
        tracks: [{ id: 'c:0', kind: 'counter', name: 'mem', rows: 1 }],
        threads: [
          { id: 0, tid: 7, name: 'Main', label: 'Main (tid 7)', tracks: [
            { id: 's:0:0', kind: 'slices', name: 'Main', rows: 3 },
            { id: 's:0:1', kind: 'slices', name: 'ui-nest', rows: 2 }] },
          { id: 1, tid: 8, name: 'Idle', label: 'Idle (tid 8)', tracks: [] },
        ] },
      { id: 1, pid: 2, name: null, label: 'pid 2', labels: null, frame_url: null, tracks: [],
        threads: [{ id: 2, tid: 1, name: null, label: 'tid 1', tracks: [{ id: 's:2:0', kind: 'slices', name: 'tid 1', rows: 1 }] }] },
    ],
  };
}

test('process groups with their tracks, in order, with heights', () => {
  const l = buildLayout(summary(), new Set());
  assert.deepEqual(l.rows.map((r) => [r.kind, r.label]), [
    ['process', 'Browser (pid 1) · a,b · https://x/'],
    ['track', 'mem'],
    ['track', 'Main (tid 7)'],
    ['track', 'Main (tid 7) · ui-nest'],
    ['empty', 'Idle (tid 8)'],
    ['process', 'pid 2'],
    ['track', 'tid 1'],
  ]);
  const h = [HEADER_H, COUNTER_H, 3 * ROW_H + TRACK_PAD, 2 * ROW_H + TRACK_PAD, EMPTY_H, HEADER_H, ROW_H + TRACK_PAD];
  let y = 0;
  l.rows.forEach((r, i) => {
    assert.equal(r.y, y);
    assert.equal(r.h, h[i]);
    y += h[i];
  });
  assert.equal(l.height, y);
  assert.equal(l.byTrack.get('s:0:1')?.y, HEADER_H + COUNTER_H + 3 * ROW_H + TRACK_PAD);
  assert.deepEqual(l.groups.get(1), { y0: l.rows[5].y, y1: y });
});

test('collapsed process keeps only its header', () => {
  const l = buildLayout(summary(), new Set([0]));
  assert.deepEqual(l.rows.map((r) => r.label), ['Browser (pid 1) · a,b · https://x/', 'pid 2', 'tid 1']);
  assert.equal(l.rows[0].collapsed, true);
  assert.equal(l.byTrack.has('s:0:0'), false);
});

test('row lookup by y', () => {
  const l = buildLayout(summary(), new Set());
  assert.equal(rowIndexAt(l.rows, 0), 0);
  assert.equal(rowIndexAt(l.rows, HEADER_H), 1);
  assert.equal(rowIndexAt(l.rows, HEADER_H - 0.5), 0);
  assert.equal(rowIndexAt(l.rows, l.height), -1);
  assert.equal(rowIndexAt(l.rows, -1), -1);
  assert.deepEqual(visibleRows(l.rows, HEADER_H + 1, HEADER_H + COUNTER_H + 1).map((r) => r.label), ['mem', 'Main (tid 7)']);
});

test('process label without extras is the server label', () => {
  const p = summary().processes[1];
  assert.equal(processLabel(p), 'pid 2');
});
