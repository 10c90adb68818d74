import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prepareSlices, mergeCounterTiles, rasterSlices, rasterInstants, counterScaleText, pastDiamonds, decorateSlices } from '../tracks.js';
import { Raster, pack, toRgb } from '../raster.js';
import { colorFor } from '../colors.js';

/** @type {any} */
const theme = { dark: false };

test('tile items get their name colour, cname wins, packed pixels match', () => {
  /** @type {any} */
  const tile = {
    ts: [0, 10, 20, 30], dur: [5, 5, 5, 5], row: [0, 0, 0, 1], id: [0, 1, 2, 3],
    name: [0, 1, 0, 0], count: [1, 1, 1, 1], flags: [0, 0, 0, 0], color: [-1, -1, -1, 2],
    strings: ['RunTask', 'Paint', 'terrible'],
  };
  const p = prepareSlices(tile, theme);
  assert.deepEqual(p.fill, [colorFor('RunTask', null, false), colorFor('Paint', null, false), colorFor('RunTask', null, false), 'rgb(180 0 0)']);
  assert.equal(p.darkText[3], 0, 'white text on dark red');
  assert.equal(p.packed[3], 0xff0000b4, 'rgb(180 0 0) as little-endian RGBA');
  assert.equal(p.packed[0], p.packed[2]);
});

test('slices are painted as spans of their rows, at least one pixel wide', () => {
  /** @type {any} */
  const tile = { data: { ts: [0, 50, 60.2], dur: [40, 0.1, 10], row: [0, 1, 1], id: [0, 1, 2], name: [0, 0, 0], color: [-1, -1, -1], strings: ['a'] }, prepared: null };
  const raster = new Raster();
  raster.begin({ createImageData: (w, h) => /** @type {any} */ ({ data: new Uint8ClampedArray(w * h * 4) }) }, 100, 60, 0);
  /** @type {any} */
  const scale = { t0: 0, nsPerPx: 1, width: 100 };
  // The first slice row starts at line 2 (under the track's top padding).
  rasterSlices(raster, [tile], scale, 1, 2, 2, theme);
  const c = pack(colorFor('a', null, false));
  const at = (/** @type {number} */ x, /** @type {number} */ y) => raster.px[y * 100 + x];
  // Row 0 covers lines 2..18, x 0..39; row 1 lines 20..36.
  assert.equal(at(0, 2), c);
  assert.equal(at(39, 18), c);
  assert.equal(at(40, 10), 0);
  assert.equal(at(0, 1), 0, 'top padding');
  assert.equal(at(0, 19), 0, 'gap between rows');
  assert.equal(at(50, 25), c, 'a sub-pixel slice still gets one pixel');
  assert.equal(at(51, 25), 0);
  assert.equal(at(60, 36), c);
  assert.equal(at(69, 36), c, '60.2 + 10 ends at pixel 70 (rounded)');
  assert.equal(at(70, 36), 0);
});

test('counter tiles merge in time order without repeating boundary points', () => {
  /** @type {any[]} */
  const tiles = [{ ts: [0, 10, 20], value: [1, 2, 3] }, { ts: [20, 30], value: [3, 4] }];
  assert.deepEqual(mergeCounterTiles(tiles), { ts: [0, 10, 20, 30], value: [1, 2, 3, 4] });
});

test('CSS colours to pixels', () => {
  assert.deepEqual(toRgb('#fff'), [255, 255, 255]);
  assert.deepEqual(toRgb('#16181d'), [22, 24, 29]);
  assert.deepEqual(toRgb('rgb(1, 2, 3)'), [1, 2, 3]);
  assert.deepEqual(toRgb('rgb(180 0 0)'), [180, 0, 0]);
  assert.deepEqual(toRgb('hsl(0 100% 50%)'), [255, 0, 0]);
  assert.deepEqual(toRgb('hsl(120 100% 25%)'), [0, 128, 0]);
  assert.equal(pack('#000000'), 0xff000000);
});

test("a counter's scale: its top value, and its bottom one when below zero", () => {
  assert.equal(counterScaleText(0, 1234567), '1,234,567');
  assert.equal(counterScaleText(5, 2.5), '2.5');
  assert.equal(counterScaleText(-3, 10), '10 (min -3)');
});

test('instants closer than a flag: one band, no dark edge between them', () => {
  const raster = new Raster();
  raster.begin({ createImageData: (w, h) => /** @type {any} */ ({ data: new Uint8ClampedArray(w * h * 4) }) }, 60, 12, 0);
  /** @type {any} */
  const tile = { data: { ts: [], dur: [], row: [], id: [], name: [], instants: { ts: [20, 26], name: [0, 0], id: [0, 1], scope: ['t', 't'] }, strings: ['mark'] }, prepared: null };
  /** @type {any} */
  const scale = { t0: 0, nsPerPx: 1, width: 60, toPx: (/** @type {number} */ t) => t };
  /** @type {any} */
  const th = { dark: false, fg: 'rgb(0 0 0)' };
  rasterInstants(raster, [tile], scale, 1, 0, th);
  const fill = pack(colorFor('mark', null, false));
  const px = (/** @type {number} */ x, /** @type {number} */ y) => raster.px[y * 60 + x];
  // On the top line, between the two flags' centres, every pixel is fill.
  for (let x = 20; x <= 26; x++) assert.equal(px(x, 1), fill, `x ${x}`);
  assert.deepEqual([px(15, 1), px(30, 1)], [pack('rgb(0 0 0)'), pack('rgb(0 0 0)')], 'the band keeps its outer edges');
});

test("an object's name starts after the snapshot diamonds it would run into", () => {
  // A name 30 px wide at 13 px; diamonds (5 px half width) at 15, 22 and 50 px
  // (each within the name once it moved), one far later at 200.
  assert.equal(pastDiamonds([15, 22, 50, 200], 13, 0, 1, 30), 50 + 5 + 3);
  assert.equal(pastDiamonds([200], 13, 0, 1, 30), 13, 'a diamond further on leaves it');
  assert.equal(pastDiamonds([2], 13, 0, 1, 30), 13, 'a diamond before it too');
  assert.equal(pastDiamonds([1000, 1010], 10, 0, 100, 30), 10 + 5 + 3, 'in ns at 100 ns/px');
});

test('names and marks: once per item across tiles, none for narrow unmarked items', () => {
  /** @type {string[]} */
  const calls = [];
  /** @type {any} */
  const ctx = {
    font: '12px sans-serif',
    measureText: (/** @type {string} */ s) => ({ width: 6 * s.length }),
    fillText: (/** @type {string} */ s, /** @type {number} */ x, /** @type {number} */ y) => calls.push(`text ${s} ${x} ${y}`),
    strokeRect: (/** @type {number} */ x, /** @type {number} */ y) => calls.push(`stroke ${x} ${y}`),
    fillRect: () => calls.push('fill'),
    setLineDash: () => {},
  };
  // Item 0 (id 7) crosses the edge of the two tiles; item 1 is 5 px wide; item 2 is
  // 5 px wide and overlaps its parent; item 3 is a merged item (no id), 10 px.
  const tile = (/** @type {number[]} */ ids) => ({
    data: { ts: [0, 100, 110, 120], dur: [80, 5, 5, 10], row: [0, 0, 1, 0], id: ids, name: [0, 1, 1, 1],
      count: [1, 1, 1, 3], flags: [0, 0, 2, 0], color: [-1, -1, -1, -1], strings: ['Step', 'k'] },
    prepared: null,
  });
  /** @type {any} */
  const scale = { t0: 0, nsPerPx: 1, width: 200 };
  /** @type {any} */
  const th = { dark: false, stripes: null, warn: 'orange', accent: 'blue', textDark: 'black', textLight: 'white' };
  decorateSlices(ctx, [tile([7, 8, 9, -1]), tile([7, 8, 9, -1])], scale, 10, 4, th, null);
  assert.deepEqual(calls, ['text Step 13 13', 'stroke 120.5 22.5']);
  calls.length = 0;
  // A search for "k" outlines the narrow items that match, each once.
  decorateSlices(ctx, [tile([7, 8, 9, -1]), tile([7, 8, 9, -1])], scale, 10, 4, th, { query: 'k', regex: null });
  assert.deepEqual(calls, ['text Step 13 13', 'stroke 111 5', 'stroke 120.5 22.5', 'stroke 121 23', 'stroke 131 5']);
});

test('the inlined span painting equals Raster.span item by item (random tiles, scales, dpr, tops)', () => {
  const fake = { createImageData: (/** @type {number} */ w, /** @type {number} */ h) => /** @type {any} */ ({ data: new Uint8ClampedArray(w * h * 4) }) };
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let round = 0; round < 40; round++) {
    const n = 1 + Math.floor(rand() * 300);
    const names = ['a', 'b', 'c', 'd'];
    /** @type {any} */
    const data = { ts: [], dur: [], row: [], id: [], name: [], color: [], strings: names };
    for (let i = 0; i < n; i++) {
      data.ts.push(rand() * 2000 - 200);
      data.dur.push(rand() < 0.7 ? rand() * 3 : rand() * 600);
      data.row.push(Math.floor(rand() * 4));
      data.id.push(i);
      data.name.push(Math.floor(rand() * 4));
      data.color.push(-1);
    }
    const dpr = [1, 1.5, 2, 1.25][round % 4];
    const rows = 3 + (round % 2);
    const top = [-30, 2, 17.5, 55][round % 4];
    /** @type {any} */
    const scale = { t0: rand() * 100, nsPerPx: 0.5 + rand() * 3, width: 300 };
    const w = Math.round(scale.width * dpr);
    const h = 90;
    const got = new Raster();
    got.begin(fake, w, h, 0);
    rasterSlices(got, [{ data, prepared: null }], scale, dpr, top, rows, theme);
    // The painting before it was inlined: one Raster.span per item, then replicate.
    const want = new Raster();
    want.begin(fake, w, h, 0);
    const p = prepareSlices(data, theme);
    const rowH = 18 * dpr;
    const itemH = Math.max(1, Math.round(17 * dpr));
    const first = Math.round(top);
    for (let i = 0; i < n; i++) {
      const x = (data.ts[i] - scale.t0) / scale.nsPerPx;
      const wd = data.dur[i] / scale.nsPerPx;
      if (x > scale.width || x + wd < 0) continue;
      const y0 = Math.round(first + data.row[i] * rowH);
      const y = y0 < 0 ? 0 : y0;
      if (y >= y0 + itemH) continue;
      want.span(y, x * dpr, (x + wd) * dpr, p.packed[i]);
    }
    for (let k = 0; k < rows; k++) {
      const y0 = Math.round(first + k * rowH);
      const y = Math.max(0, y0);
      want.replicate(y, y0 + itemH - y);
    }
    assert.deepEqual(got.px, want.px, `round ${round}`);
  }
});
