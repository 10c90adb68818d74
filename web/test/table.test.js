import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sortedOrder, nextSort } from '../table.js';
import { groupColumns, counterColumns } from '../rangepanel.js';

/** @param {Array<number|string|null>} vals @param {boolean} numeric */
const col = (vals, numeric) => ({ id: 'c', label: 'C', numeric, value: (/** @type {number} */ i) => vals[i] });

test('numbers sort numerically, not as text', () => {
  const c = col([10, 9, 100, 2], true);
  assert.deepEqual(sortedOrder(4, c, 1), [3, 1, 0, 2]);
  assert.deepEqual(sortedOrder(4, c, -1), [2, 0, 1, 3]);
});

test('ties keep the server order in both directions (stable)', () => {
  const c = col([5, 7, 5, 7, 5], true);
  assert.deepEqual(sortedOrder(5, c, 1), [0, 2, 4, 1, 3]);
  assert.deepEqual(sortedOrder(5, c, -1), [1, 3, 0, 2, 4]);
});

test('text sorts by code points; missing values go last either way', () => {
  const c = col(['b', 'B', null, 'a', 'ab'], false);
  assert.deepEqual(sortedOrder(5, c, 1), [1, 3, 4, 0, 2]);
  assert.deepEqual(sortedOrder(5, c, -1), [0, 4, 3, 1, 2]);
});

test('no sort column: the server order', () => {
  assert.deepEqual(sortedOrder(3, null, -1), [0, 1, 2]);
});

test('a click sorts numbers biggest first, text A-Z; a second click reverses', () => {
  const num = { ...col([], true), id: 'total' };
  const txt = { ...col([], false), id: 'key' };
  let s = nextSort({ column: null, dir: 1 }, num);
  assert.deepEqual(s, { column: 'total', dir: -1 });
  s = nextSort(s, num);
  assert.deepEqual(s, { column: 'total', dir: 1 });
  assert.deepEqual(nextSort(s, txt), { column: 'key', dir: 1 });
});

/** A range answer as docs/api.md gives it (two groups, one counter). */
const answer = {
  t0: 0, t1: 1000, by: /** @type {const} */ ('name'), slices: 3,
  groups: { key: ['RunTask', ''], thread: [-1, -1], count: [2, 1], total: [900, 50], self: [600, 50], in_range: [800, 50],
    thread_total: [700, -1], avg: [450, 50], min: [300, 50], max: [600, 50], did_not_finish: [1, 0] },
  counters: { track: ['c:0'], name: ['heap'], count: [3], min: [1.5], max: [9], avg: [4.25], first: [2], last: [9], delta: [7] },
};

test('range columns read the answer; no thread time is missing, not -1', () => {
  const cols = groupColumns(answer);
  assert.deepEqual(cols.map((c) => c.id), ['key', 'count', 'total', 'self', 'in_range', 'thread_total', 'avg', 'min', 'max', 'did_not_finish']);
  const by = Object.fromEntries(cols.map((c) => [c.id, c]));
  assert.equal(by.key.label, 'Name');
  assert.equal(by.thread_total.value(0), 700);
  assert.equal(by.thread_total.value(1), null);
  assert.equal(by.total.show?.(900_000), '900 µs');
  assert.equal(by.key.show?.(''), '<span class="muted">(none)</span>');
  assert.equal(by.key.show?.('<b>'), '&#60;b&#62;');
  assert.deepEqual(sortedOrder(2, by.total, 1), [1, 0]);
  assert.equal(groupColumns({ ...answer, by: 'thread' })[0].label, 'Thread');
  const cc = counterColumns(answer);
  assert.deepEqual(cc.map((c) => [c.id, c.value(0)]), [['name', 'heap'], ['count', 3], ['min', 1.5], ['max', 9], ['avg', 4.25], ['first', 2], ['last', 9], ['delta', 7]]);
});

test('counts read in the singular for one', async () => {
  const { plural } = await import('../rangepanel.js');
  assert.equal(plural(1, 'group'), '1 group');
  assert.equal(plural(0, 'slice'), '0 slices');
  assert.equal(plural(12345, 'slice'), '12,345 slices');
});
