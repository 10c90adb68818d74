import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeHash, decodeHash, traceKey } from '../hash.js';
import { initialState, Store } from '../state.js';

/** A state with every key the hash keeps set. */
function full() {
  return {
    ...initialState(),
    view: { t0: 1200.4, t1: 98765 },
    selection: /** @type {any} */ ({ kind: 'slice', id: 42, track: 's:3:0', row: 2, ts: 1500, dur: 300, name: 'Run, Task & co' }),
    mark: { t0: 1000, t1: 5000, tracks: ['s:3:0', 'c:1'] },
    pinned: ['s:3:0', 'ic:2'],
    hidden: ['P4', 'a:7'],
    folds: { P1: true, 'P2:async': false, empty: false },
    order: { root: ['P2', 'P1'], P1: ['T5', 'T3'], 'P2:async': ['a:9', 'a:8'] },
    filter: '/^Cr(Renderer|Browser)Main$/',
    labelW: 321,
    tab: 'range',
  };
}

test('the hash keeps view, selection, range, pins, hidden, folds, order, filter, width, tab, scroll', () => {
  const s = full();
  const h = decodeHash(`#${encodeHash(s, 'abc', 480)}`);
  assert.ok(h);
  assert.equal(h.key, 'abc');
  assert.equal(h.scroll, 480);
  assert.deepEqual(h.state, {
    view: { t0: 1200, t1: 98765 },
    selection: { kind: 'slice', id: 42, track: 's:3:0', row: 2, ts: 1500, dur: 300, name: 'Run, Task & co' },
    mark: s.mark, pinned: s.pinned, hidden: s.hidden, folds: s.folds, order: s.order, filter: s.filter, labelW: 321, tab: 'range',
  });
});

test('instants, snapshots and screenshots keep their scope and index', () => {
  const s = { ...initialState(), selection: /** @type {any} */ ({ kind: 'instant', id: 7, track: 's:1:0', row: -1, ts: 10, dur: 0, name: 'Mark', scope: 'p' }) };
  assert.deepEqual(decodeHash(encodeHash(s, 'k'))?.state.selection, s.selection);
  const snap = { ...initialState(), selection: /** @type {any} */ ({ kind: 'snapshot', id: 3, track: 'o:1', row: 0, ts: 10, dur: 0, name: 'LayerTree', index: 2 }) };
  assert.deepEqual(decodeHash(encodeHash(snap, 'k'))?.state.selection, snap.selection);
});

test('a default state writes only the key; junk is skipped', () => {
  assert.equal(encodeHash(initialState(), 'k'), 'k=k');
  assert.deepEqual(decodeHash('#k=k')?.state, {});
  assert.equal(decodeHash(''), null);
  assert.equal(decodeHash('#t=1,2'), null, 'no trace key: not ours');
  const h = decodeHash('#k=x&t=5,1&sel=bogus,1,a,0,0,0&r=a,b&lw=wide&sel2=1');
  assert.deepEqual(h?.state, {}, 'an empty or reversed range, an unknown kind, a bad width are dropped');
});

test('trace keys differ by name, size and times', () => {
  const a = traceKey({ name: 't.json', events: 10, start_ns: 0, end_ns: 100 });
  assert.equal(a, traceKey({ name: 't.json', events: 10, start_ns: 0, end_ns: 100 }));
  assert.notEqual(a, traceKey({ name: 't.json', events: 11, start_ns: 0, end_ns: 100 }));
  assert.notEqual(a, traceKey({ name: 'u.json', events: 10, start_ns: 0, end_ns: 100 }));
});

test('the store tells each subscriber once, only for its keys that changed', () => {
  const st = new Store();
  /** @type {string[]} */
  const seen = [];
  st.on(['pinned', 'hidden'], (_, changed) => seen.push(`layout:${[...changed].join('+')}`));
  st.on(['selection'], () => seen.push('selection'));
  st.on(null, () => seen.push('any'));
  st.set({ pinned: ['a'], hidden: ['b'], tab: 'x' });
  st.set({ tab: 'x' });
  st.toggleIn('pinned', 'a', true);
  st.toggleIn('pinned', 'a', false);
  st.fold({ P1: true });
  assert.deepEqual(seen, ['layout:pinned+hidden+tab', 'any', 'layout:pinned', 'any', 'any']);
  assert.deepEqual(st.state.pinned, []);
  assert.deepEqual(st.state.folds, { P1: true });
});
