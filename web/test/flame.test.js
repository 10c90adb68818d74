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
