import { test } from 'node:test';
import assert from 'node:assert/strict';
import { timelineColumns, sliceItem, errorText } from '../querypanel.js';

test('slice id and time columns are found by name', () => {
  assert.deepEqual(timelineColumns(['id', 'name', 'ts', 'dur'], 'SELECT id, name, ts, dur FROM slice'),
    { slice: 0, ts: 2, dur: 3, ours: false });
  assert.deepEqual(timelineColumns(['id', 'ts_ns', 'dur_ns'], 'select id, ts_ns, dur_ns from slices'),
    { slice: 0, ts: 1, dur: 2, ours: true });
  // An `id` of another table is no slice id; `slice_id` always is.
  assert.equal(timelineColumns(['id', 'name'], 'SELECT id, name FROM thread').slice, -1);
  assert.equal(timelineColumns(['x', 'slice_id'], 'SELECT 1 AS x, slice_id FROM flow').slice, 1);
  assert.equal(timelineColumns(['name'], 'SELECT name FROM slice').ts, -1);
});

test('slice ids name thread slices, then instants, then async slices', () => {
  const counts = { slices: 10, instants: 3 };
  assert.deepEqual(sliceItem(4, false, counts), { kind: 'slice', id: 4 });
  assert.deepEqual(sliceItem(11, false, counts), { kind: 'instant', id: 1 });
  assert.deepEqual(sliceItem(15, false, counts), { kind: 'async', id: 2 });
  // Our `slices` table holds thread slices only.
  assert.deepEqual(sliceItem(15, true, counts), { kind: 'slice', id: 15 });
});

test('errors point at their line and column', () => {
  assert.equal(errorText({ error: 'no such column: x', line: 2, column: 8 }, 'SELECT 1\nWHERE  x = 1'),
    'no such column: x (line 2, column 8)\nWHERE  x = 1\n       ^');
  assert.equal(errorText({ error: 'interrupted' }, 'SELECT 1'), 'interrupted');
});
