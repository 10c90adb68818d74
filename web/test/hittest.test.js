import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hitItem, hitInstant, counterValueAt, rowAt } from '../hittest.js';
import { tileLevel, tileRange, TILE_PX, MIN_LEVEL } from '../api.js';

/** @returns {any} */
const tile = () => ({ ts: [1000, 1100, 5000], dur: [3000, 2800, 10], row: [0, 1, 0], id: [0, 1, 2] });

test('hit the slice whose body contains the time, per row', () => {
  assert.equal(hitItem(tile(), 0, 2000, 0), 0);
  assert.equal(hitItem(tile(), 1, 2000, 0), 1);
  assert.equal(hitItem(tile(), 1, 1050, 0), -1);
  assert.equal(hitItem(tile(), 1, 1050, 100), 1, 'tolerance reaches a near slice');
  assert.equal(hitItem(tile(), 0, 4000, 0), -1, 'end is exclusive');
  assert.equal(hitItem(tile(), 0, 5012, 5), 2, 'tiny slices are widened');
  assert.equal(hitItem(tile(), 2, 2000, 1e9), -1);
});

test('instants and counters', () => {
  assert.equal(hitInstant({ ts: [100, 200, 300] }, 190, 20), 1);
  assert.equal(hitInstant({ ts: [100] }, 190, 20), -1);
  const pts = { ts: [10, 20, 30], value: [1, 2, 3] };
  assert.equal(counterValueAt(pts, 5), null);
  assert.equal(counterValueAt(pts, 10), 1);
  assert.equal(counterValueAt(pts, 29), 2);
  assert.equal(counterValueAt(pts, 1e9), 3);
});

test('sub-row from y', () => {
  assert.equal(rowAt(2, 18, 3, 2), 0);
  assert.equal(rowAt(21, 18, 3, 2), 1);
  assert.equal(rowAt(1, 18, 3, 2), -1);
  assert.equal(rowAt(56, 18, 3, 2), -1);
});

test('tile levels are never coarser than the screen', () => {
  for (const r of [0.001, 1, 3.7, 1000, 123456]) {
    const level = tileLevel(r);
    assert.ok(level >= MIN_LEVEL);
    if (level > MIN_LEVEL) {
      assert.ok(2 ** level / TILE_PX <= r, `level ${level} for ${r} ns/px`);
      assert.ok(2 ** (level + 1) / TILE_PX > r);
    }
  }
  assert.deepEqual(tileRange(100, 300, 7), [0, 1, 2]);
  assert.deepEqual(tileRange(-10, 10, 6), [-1, 0]);
});
