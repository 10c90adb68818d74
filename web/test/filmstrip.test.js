import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shotsOf, shotAt, filmSlots } from '../filmstrip.js';
import { TimeScale } from '../timescale.js';

/** Two tiles sharing a screenshot at their edge. @returns {any[]} */
const tiles = () => [
  { data: { ts: [100, 300], dur: [200, 200], id: [7, 8], count: [1, 1] } },
  { data: { ts: [300, 500], dur: [200, 500], id: [8, 9], count: [1, 3] } },
];

test('screenshots of tiles: once each, by time, with how many a pixel holds', () => {
  assert.deepEqual(shotsOf(tiles()), [
    { ts: 100, dur: 200, id: 7, count: 1 }, { ts: 300, dur: 200, id: 8, count: 1 }, { ts: 500, dur: 500, id: 9, count: 3 },
  ]);
});

test('the screenshot on screen at a time: the last before it, none before the first or after the end', () => {
  const s = shotsOf(tiles());
  assert.equal(shotAt(s, 99), null);
  assert.equal(shotAt(s, 100)?.id, 7);
  assert.equal(shotAt(s, 299)?.id, 7);
  assert.equal(shotAt(s, 300)?.id, 8);
  assert.equal(shotAt(s, 1000)?.id, 9);
  assert.equal(shotAt(s, 1001), null);
});

test('thumbnail slots from the first screenshot on, each showing the screen at its left edge', () => {
  const scale = new TimeScale(0, 1000, 100);
  const slots = filmSlots(shotsOf(tiles()), scale, 18);
  assert.deepEqual(slots.map((x) => [x.x, x.shot.id]), [[10, 7], [30, 8], [50, 9], [70, 9], [90, 9]]);
  assert.deepEqual(filmSlots([], scale, 18), []);
});
