import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subtreeEnds } from '../calltree.js';
import { flameLayout, flameHit } from '../flame.js';

/** A(B(C), D, Z), E(F); Z takes no time. Totals in ns. */
function tree() {
  const depth = [0, 1, 2, 1, 1, 0, 1];
  const parent = [-1, 0, 1, 0, 0, -1, 5];
  const total = [60, 30, 15, 20, 0, 40, 40];
  const z = depth.map(() => 0);
  return { parent, depth, name: z, url: z, line: z, column: z, self: z, total, self_samples: z, total_samples: z };
}

/** Boxes as [node, x, w, depth, ancestor] with fractions rounded. */
const boxes = (/** @type {import('../flame.js').FlameLayout} */ l) =>
  l.node.map((n, k) => [n, +l.x[k].toFixed(4), +l.w[k].toFixed(4), l.depth[k], l.ancestor[k]]);

test('the whole tree: roots side by side, children from their parent\'s left edge', () => {
  const t = tree();
  const l = flameLayout(t, subtreeEnds(t), -1);
  assert.deepEqual(boxes(l), [
    [0, 0, 0.6, 0, false], [1, 0, 0.3, 1, false], [2, 0, 0.15, 2, false], [3, 0.3, 0.2, 1, false],
    [5, 0.6, 0.4, 0, false], [6, 0.6, 0.4, 1, false],
  ]);
  assert.equal(l.levels, 3);
});

test('zoomed into a node: it is full width, its ancestors above it, the rest gone', () => {
  const t = tree();
  const l = flameLayout(t, subtreeEnds(t), 1);
  assert.deepEqual(boxes(l), [[0, 0, 1, 0, true], [1, 0, 1, 1, false], [2, 0, 0.5, 2, false]]);
});

test('hit testing finds the box under a point of a level', () => {
  const t = tree();
  const l = flameLayout(t, subtreeEnds(t), -1);
  const at = (/** @type {number} */ fx, /** @type {number} */ lvl) => { const k = flameHit(l, fx, lvl); return k < 0 ? -1 : l.node[k]; };
  assert.equal(at(0.1, 0), 0);
  assert.equal(at(0.6, 0), 5);
  assert.equal(at(0.35, 1), 3);
  assert.equal(at(0.55, 1), -1);
  assert.equal(at(0.1, 2), 2);
  assert.equal(at(0.2, 2), -1);
  assert.equal(at(0.1, 5), -1);
});

test('an empty profile lays out nothing', () => {
  const z = /** @type {number[]} */ ([]);
  const t = { parent: z, depth: z, name: z, url: z, line: z, column: z, self: z, total: z, self_samples: z, total_samples: z };
  assert.deepEqual(flameLayout(t, subtreeEnds(t), -1).node, []);
});

test('a flipped flame graph puts the roots on the bottom row', async () => {
  const { levelAt } = await import('../flame.js');
  const t = tree();
  const l = flameLayout(t, subtreeEnds(t), -1);
  assert.deepEqual([0, 1, 2].map((r) => levelAt(l, r, true)), [2, 1, 0]);
  assert.deepEqual([0, 1, 2].map((r) => levelAt(l, r, false)), [0, 1, 2]);
});

test('the SVG export has a box per node, tooltips and fitted names', async () => {
  const { flameSvg, FLAME_ROW_H } = await import('../flame.js');
  const t = tree();
  const names = ['main', 'parse<html>', 'c', 'd', 'z', 'e', 'f'];
  const l = flameLayout(t, subtreeEnds(t), -1);
  const svg = flameSvg(l, { name: (n) => names[n], total: (n) => t.total[n] * 1000, self: () => 0, whole: 100000, title: 'Slices · whole trace', width: 1000 });
  assert.ok(svg.startsWith('<?xml') && svg.includes('<svg xmlns="http://www.w3.org/2000/svg" width="1000"'));
  assert.equal((svg.match(/<rect x=/g) ?? []).length, 6, 'Z takes no time and is left out');
  assert.ok(svg.includes('<title>parse&#60;html&#62;: 30 µs (30.0%), self 0 ns</title>'), 'names are escaped');
  assert.ok(svg.includes(`<rect x="0.00" y="${28 + 2 * FLAME_ROW_H}" width="149.00"`), 'c: 15% of 1000 px on level 2');
  assert.ok(svg.includes('>Slices · whole trace</text>'));
  // 60 px for "d": its name fits; a long name in a narrow box is cut with an ellipsis.
  const narrow = flameSvg(l, { name: (n) => (n === 2 ? 'averyveryverylongname' : names[n]), total: (n) => t.total[n], self: () => 0, whole: 100, title: 't', width: 400, unit: 'count' });
  // 15% of 400 px: 60 px, 8 characters of which the last is the ellipsis.
  assert.ok(narrow.includes('>averyve…</text>'), narrow);
  assert.ok(narrow.includes('<title>main: 60 (60.0%), self 0</title>'));
});
