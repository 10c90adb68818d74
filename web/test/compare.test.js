import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shifted, matchOffset, ViewLink } from '../compare/link.js';
import { layoutFlame, changeColor, childrenOf } from '../compare/diffflame.js';
import { filterGroups, percentOf, columns, signed } from '../compare/difftable.js';
import { Store } from '../state.js';
import { runsFromHash, runsHash } from '../compare/runs.js';

test('the other side sees the same span, shifted', () => {
  assert.deepEqual(shifted({ t0: 10, t1: 50 }, 1000), { t0: 1010, t1: 1050 });
});

test('linked views follow each other both ways, without looping', () => {
  const a = new Store();
  const b = new Store();
  const link = new ViewLink(a, b, 500);
  a.set({ view: { t0: 0, t1: 100 } });
  assert.deepEqual(b.state.view, { t0: 500, t1: 600 });
  b.set({ view: { t0: 700, t1: 900 } });
  assert.deepEqual(a.state.view, { t0: 200, t1: 400 });
  // A new offset moves the new side under the base's view.
  link.align(-200);
  assert.deepEqual(b.state.view, { t0: 0, t1: 200 });
  assert.deepEqual(a.state.view, { t0: 200, t1: 400 });
});

test('align on the k-th slice of a name, or the last the other side has', () => {
  // Picked on the base: the second of three; the new side has its second at 250.
  assert.equal(matchOffset([10, 20, 30], [150, 250, 350], 1, true), 230);
  // Picked on the new side: its third; the base has only two (the last, at 20).
  assert.equal(matchOffset([150, 250, 350], [10, 20], 2, false), 330);
  assert.equal(matchOffset([10], [], 0, true), null);
  assert.equal(matchOffset([10], [5], -1, true), null);
});

// root(new 100, base 80) -> a(new 60, base 60), b(new 40, base 10); a -> c(new 30)
const nodes = {
  parent: [-1, 0, 1, 0],
  name: ['root', 'a', 'c', 'b'],
  new_total: [100, 60, 30, 40],
  base_total: [80, 60, 20, 10],
  new_self: [0, 30, 30, 40],
  base_self: [10, 40, 20, 10],
};

test('flame frames nest in their parents, as wide as their share', () => {
  const { kids, roots } = childrenOf(nodes);
  assert.deepEqual(roots, [0]);
  assert.deepEqual(kids[0], [1, 3]);
  const r = layoutFlame(nodes, 'new', -1, 1000).map((x) => [nodes.name[x.i], x.x, x.w, x.depth]);
  assert.deepEqual(r, [['root', 0, 1000, 0], ['a', 0, 600, 1], ['c', 0, 300, 2], ['b', 600, 400, 1]]);
  // Sized by the base: b shrinks to an eighth of the root.
  const rb = layoutFlame(nodes, 'base', -1, 800).map((x) => [nodes.name[x.i], x.x, x.w]);
  assert.deepEqual(rb, [['root', 0, 800], ['a', 0, 600], ['c', 0, 200], ['b', 600, 100]]);
});

test('zooming into a frame: its ancestors full width above, its subtree below', () => {
  const r = layoutFlame(nodes, 'new', 1, 600).map((x) => [nodes.name[x.i], x.x, x.w, x.depth]);
  assert.deepEqual(r, [['root', 0, 600, 0], ['a', 0, 600, 1], ['c', 0, 300, 2]]);
});

test('frames coloured by the change of self time', () => {
  assert.match(changeColor(50, 50, false), /^hsl\(0, 90%, 55%\)$/);
  assert.match(changeColor(-50, 50, false), /^hsl\(215, 90%, 55%\)$/);
  assert.equal(changeColor(0, 50, false), 'hsl(220, 8%, 82%)');
  assert.equal(changeColor(5, 0, true), 'hsl(220, 6%, 38%)');
});

/** @param {string} key @param {string} change @param {number|null} ratio */
const g = (key, change, ratio) => ({
  key, change, base: null, new: null, delta: { total_ns: 0 }, ratio: { total_ns: ratio },
  significant: null, p_value: null, base_key: null, new_key: null,
});

test('diff table: filter by key, percentages with added and removed at the ends', () => {
  const groups = [g('aten::mm', 'changed', 1.3), g('Layout', 'added', null), g('paint', 'removed', null)];
  assert.deepEqual(filterGroups(/** @type {any} */ (groups), 'LAY').map((x) => x.key), ['Layout']);
  assert.equal(filterGroups(/** @type {any} */ (groups), ' ').length, 3);
  assert.ok(Math.abs(/** @type {number} */ (percentOf(/** @type {any} */ (groups[0]), 'total_ns')) - 30) < 1e-9);
  assert.equal(percentOf(/** @type {any} */ (groups[1]), 'total_ns'), Infinity);
  assert.equal(percentOf(/** @type {any} */ (groups[2]), 'total_ns'), -Infinity);
  assert.deepEqual(columns(/** @type {any} */ (groups), false).map((c) => c.id).slice(0, 4), ['key', 'change', 'count_b', 'count_n']);
  assert.equal(columns(/** @type {any} */ (groups), true).at(-1)?.id, 'p');
  assert.equal(signed(3e6, true), '<span class="up">+3 ms</span>');
  assert.equal(signed(-2, false), '<span class="down">−2</span>');
  assert.equal(signed(null, true), '–');
});

test('the hash keeps the run each timeline shows, within the runs there are', () => {
  const info = { base: { files: ['a', 'b', 'c'] }, new: { files: ['x', 'y'] } };
  assert.deepEqual(runsFromHash('#base=3&new=2', info), { base: 3, new: 2 });
  assert.deepEqual(runsFromHash('', info), { base: 1, new: 1 });
  assert.deepEqual(runsFromHash('#base=4&new=0', info), { base: 1, new: 1 }, 'out of range: the first run');
  assert.deepEqual(runsFromHash('#base=1.5&new=two', info), { base: 1, new: 1 });
  assert.equal(runsHash({ base: 1, new: 1 }), '');
  assert.equal(runsHash({ base: 2, new: 1 }), 'base=2');
  assert.equal(runsHash({ base: 2, new: 3 }), 'base=2&new=3');
});

test('a side linked anew (another run shown) follows and leads; the old store is let go', () => {
  const base = new Store();
  const next = new Store();
  const link = new ViewLink(base, next, 100);
  const other = new Store();
  link.replace('new', other);
  base.set({ view: { t0: 0, t1: 10 } });
  assert.deepEqual(other.state.view, { t0: 100, t1: 110 });
  assert.equal(next.state.view, null, 'the replaced store no longer follows');
  next.set({ view: { t0: 5000, t1: 5010 } });
  assert.deepEqual(base.state.view, { t0: 0, t1: 10 }, 'nor leads');
  other.set({ view: { t0: 200, t1: 220 } });
  assert.deepEqual(base.state.view, { t0: 100, t1: 120 });
});
