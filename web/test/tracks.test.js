import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareSlices, mergeCounterTiles } from '../tracks.js';
import { colorFor } from '../colors.js';

/** @type {any} */
const theme = { dark: false };

test('tile items get their name colour, cname wins, runs group equal fills', () => {
  /** @type {any} */
  const tile = {
    ts: [0, 10, 20, 30], dur: [5, 5, 5, 5], row: [0, 0, 0, 1], id: [0, 1, 2, 3],
    name: [0, 1, 0, 0], count: [1, 1, 1, 1], flags: [0, 0, 0, 0], color: [-1, -1, -1, 2],
    strings: ['RunTask', 'Paint', 'terrible'],
  };
  const p = prepareSlices(tile, theme);
  assert.deepEqual(p.fill, [colorFor('RunTask', null, false), colorFor('Paint', null, false), colorFor('RunTask', null, false), 'rgb(180 0 0)']);
  assert.equal(p.darkText[3], 0, 'white text on dark red');
  const covered = [];
  for (const r of p.runs) for (let k = r.start; k < r.end; k++) {
    assert.equal(p.fill[p.order[k]], r.fill);
    covered.push(p.order[k]);
  }
  assert.deepEqual(covered.sort(), [0, 1, 2, 3]);
  assert.equal(p.runs.length, 3);
});

test('counter tiles merge in time order without repeating boundary points', () => {
  /** @type {any[]} */
  const tiles = [{ ts: [0, 10, 20], value: [1, 2, 3] }, { ts: [20, 30], value: [3, 4] }];
  assert.deepEqual(mergeCounterTiles(tiles), { ts: [0, 10, 20, 30], value: [1, 2, 3, 4] });
});
