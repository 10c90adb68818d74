import { test } from 'node:test';
import assert from 'node:assert/strict';
import { subtreeEnds, visibleNodes, allExpandable, defaultExpanded, pathTo, formatLocation, percent } from '../calltree.js';

/** A tree in the answer's pre-order columns: A(B(C), D), E(F). */
function tree() {
  const depth = [0, 1, 2, 1, 0, 1];
  const parent = [-1, 0, 1, 0, -1, 4];
  const total = [60, 40, 30, 20, 40, 3];
  return { parent, depth, name: [0, 1, 2, 3, 4, 5], url: [-1, -1, -1, -1, -1, -1], line: depth.map(() => -1), column: depth.map(() => -1),
    self: [0, 10, 30, 20, 37, 3], total, self_samples: depth.map(() => 1), total_samples: depth.map(() => 1) };
}

test('subtree ends: each node covers its descendants in pre-order', () => {
  assert.deepEqual([...subtreeEnds(tree())], [4, 3, 3, 4, 6, 6]);
});

test('collapsed nodes hide their subtrees; expanded ones show their children', () => {
  const end = subtreeEnds(tree());
  assert.deepEqual(visibleNodes(end, new Set()), [0, 4]);
  assert.deepEqual(visibleNodes(end, new Set([0])), [0, 1, 3, 4]);
  assert.deepEqual(visibleNodes(end, new Set([0, 1])), [0, 1, 2, 3, 4]);
  // An expanded node under a collapsed one stays hidden.
  assert.deepEqual(visibleNodes(end, new Set([1, 4])), [0, 4, 5]);
  assert.deepEqual(visibleNodes(end, allExpandable(end)), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual([...allExpandable(end)].sort(), [0, 1, 4]);
});

test('top-down opens the heavy paths at first; bottom-up opens nothing', () => {
  const t = tree();
  const end = subtreeEnds(t);
  // Whole = 100: A (60) and B (40) hold >= 10%; E (40) too; F has no children.
  assert.deepEqual([...defaultExpanded(t, end, 'top-down', 0.1)].sort(), [0, 1, 4]);
  // At 50%, only A; B is under it but holds 40%.
  assert.deepEqual([...defaultExpanded(t, end, 'top-down', 0.5)], [0]);
  assert.deepEqual([...defaultExpanded(t, end, 'bottom-up')], []);
});

test('path to a node, root first', () => {
  assert.deepEqual(pathTo(tree(), 2), [0, 1, 2]);
  assert.deepEqual(pathTo(tree(), 4), [4]);
});

test('locations read url:line:column without the unknown parts', () => {
  assert.equal(formatLocation('node:internal/modules/run_main', 93, 20), 'node:internal/modules/run_main:93:20');
  assert.equal(formatLocation('file:///index.mjs', 11, -1), 'file:///index.mjs:11');
  assert.equal(formatLocation('file:///index.mjs', -1, -1), 'file:///index.mjs');
  assert.equal(formatLocation(null, 3, 4), '');
  assert.equal(percent(350, 900), '38.9%');
  assert.equal(percent(1, 0), '–');
});
