// The incremental layout (rows and filter matches kept from earlier layouts) must
// equal a layout built afresh, whatever the user did before: random sequences of
// filter, pin, hide, fold and reorder steps, compared after every step.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildLayout, NO_OPTIONS, MANY } from '../layout.js';
import { compileFilter, matchesOf, filterTest } from '../trackfilter.js';

/** @typedef {import('../layout.js').LayoutOptions} LayoutOptions */
/** @typedef {import('../layout.js').Layout} Layout */

/** A small seeded PRNG (mulberry32), so a failing sequence can be replayed. @param {number} seed */
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const tr = (/** @type {string} */ id, /** @type {string} */ kind, name = id, rows = 1, extra = {}) => ({ id, kind, name, rows, ...extra });

/**
 * Processes of every shape: busy threads with one or two tracks, empty threads,
 * counters (few and many), async tracks, objects, a filmstrip, an empty process.
 * @returns {any}
 */
function summary() {
  const processes = [];
  let thread = 0;
  for (let p = 0; p < 7; p++) {
    const tracks = [];
    if (p === 0) tracks.push(tr(`f:${p}`, 'screenshots', 'Screenshots'));
    const counters = p % 3 === 0 ? MANY + 2 : p % 3;
    for (let k = 0; k < counters; k++) tracks.push(tr(`c:${p}:${k}`, 'counter', `mem${k}`));
    for (let k = 0; k < p % 4; k++) tracks.push(tr(`a:${p}:${k}`, 'async', k % 2 ? `Fetch${k}` : `Load${k}`, 1 + k));
    if (p % 2) tracks.push(tr(`o:${p}`, 'objects', 'Objects', p === 5 ? 2 * MANY + 1 : 3));
    const threads = [];
    const n = p === 6 ? 2 : 3 + (p % 3);
    for (let k = 0; k < n; k++) {
      const id = thread++;
      const name = k === 0 ? 'CrRendererMain' : k % 3 === 2 ? `Idle${id}` : `worker${id}`;
      const label = `${name} (tid ${100 + id})`;
      const own = p === 6 || k % 3 === 2 ? [] : [tr(`s:${id}:0`, 'slices', name, 1 + (id % 3), id % 2 ? { instants: 2 } : {})];
      if (own.length && k === 1) own.push(tr(`p:${id}`, 'samples', 'CPU samples', 4));
      threads.push({ id, tid: 100 + id, name, label, tracks: own });
    }
    const empty = p === 6;
    processes.push({ id: p, pid: 10 + p, name: empty ? 'GPU 0' : `Renderer${p}`, label: `${empty ? 'GPU 0' : `Renderer${p}`} (pid ${10 + p})`,
      labels: p === 2 ? 'worker pool' : null, frame_url: p === 1 ? 'https://x/' : null, tracks: empty ? [] : tracks, threads });
  }
  return { processes };
}

const FILTERS = ['', 'w', 'wo', 'work', 'worker', 'worker1', 'worker12', 'worker1', 'WORKER2', 'mem', 'mem1', 'me', 'load', ' Load0 ', '/^(idle|load)/',
  '/worker\\d$/', '/[/', 'renderer3', 'gpu', 'tid 10', 'samples', 'pid 1', 'zzz', 'x/', 'pool', 'idle'];

/**
 * Every field of a layout that a user or another module sees, as plain data.
 * @param {Layout} l
 */
function shape(l) {
  /** @param {import('../layout.js').Row} r */
  const row = (r) => [r.kind, r.key, r.y, r.h, r.label, r.sub, r.process.id, r.thread, r.track?.id ?? null, r.collapsed, r.indent, r.pinned, r.count,
    r.move ? `${r.move.parent}/${r.move.key}` : null].join('|');
  return {
    rows: l.rows.map(row), pinned: l.pinned.map(row), height: l.height, pinnedH: l.pinnedH, tracks: l.tracks, filterError: l.filterError,
    groups: [...l.groups].map(([p, g]) => `${p}:${g.y0}-${g.y1}`),
    byTrack: [...l.byTrack].map(([id, r]) => `${id}=${row(r)}`).sort(),
  };
}

/**
 * One random step of a user: a filter typed, a track pinned or unpinned, a track,
 * thread or process hidden or shown, a fold, a drag, or everything reset.
 * @param {() => number} rand
 * @param {LayoutOptions} o
 * @param {any} s
 * @returns {[string, LayoutOptions]}
 */
function step(rand, o, s) {
  const pick = (/** @type {any[]} */ xs) => xs[Math.floor(rand() * xs.length)];
  const toggle = (/** @type {string[]} */ list, /** @type {string} */ x) => (list.includes(x) ? list.filter((y) => y !== x) : [...list, x]);
  const tracks = s.processes.flatMap((/** @type {any} */ p) => [...p.tracks, ...p.threads.flatMap((/** @type {any} */ th) => th.tracks)]).map((/** @type {any} */ t) => t.id);
  const threads = s.processes.flatMap((/** @type {any} */ p) => p.threads.map((/** @type {any} */ th) => `T${th.id}`));
  const procs = s.processes.map((/** @type {any} */ p) => `P${p.id}`);
  const groups = procs.flatMap((/** @type {string} */ k) => [k, `${k}:counters`, `${k}:async`, `${k}:objects`, `${k}:empty`]).concat(['empty']);
  /** A shuffled subset of `keys`, as a drag leaves them. @param {string[]} keys */
  const shuffled = (keys) => keys.map((k) => [rand(), k]).sort((a, b) => Number(a[0]) - Number(b[0])).slice(0, 1 + Math.floor(rand() * keys.length)).map((x) => String(x[1]));
  const r = rand();
  if (r < 0.3) {
    const f = pick(FILTERS);
    return [`filter ${JSON.stringify(f)}`, { ...o, filter: f }];
  }
  if (r < 0.45) {
    const id = pick(tracks);
    return [`pin ${id}`, { ...o, pinned: toggle(o.pinned, id) }];
  }
  if (r < 0.6) {
    const k = pick([...tracks, ...threads, ...procs, 'nonsense']);
    return [`hide ${k}`, { ...o, hidden: toggle(o.hidden, k) }];
  }
  if (r < 0.75) {
    const k = pick(groups);
    const folds = { ...o.folds };
    const v = rand();
    if (v < 0.2) delete folds[k];
    else folds[k] = v < 0.6;
    return [`fold ${k}=${folds[k]}`, { ...o, folds }];
  }
  if (r < 0.95) {
    const p = pick(s.processes);
    const which = rand();
    const [parent, keys] = which < 0.3 ? ['root', procs] : which < 0.7 ? [`P${p.id}`, p.threads.map((/** @type {any} */ th) => `T${th.id}`)]
      : [`P${p.id}:${pick(['counters', 'async', 'objects'])}`, p.tracks.map((/** @type {any} */ t) => t.id)];
    const keep = shuffled(keys);
    return [`order ${parent}=${keep.join('.')}`, { ...o, order: { ...o.order, [parent]: keep } }];
  }
  return ['reset', NO_OPTIONS];
}

for (const seed of [1, 2, 3, 4, 5, 6]) {
  test(`random steps (seed ${seed}): the incremental layout equals a fresh one after each`, () => {
    const rand = rng(seed);
    const s = summary();
    /** @type {LayoutOptions} */
    let o = NO_OPTIONS;
    const done = [];
    for (let i = 0; i < 250; i++) {
      const [what, next] = step(rand, o, s);
      o = next;
      done.push(what);
      const kept = buildLayout(s, o);
      // A new summary object: no rows, matches or names from before.
      const fresh = buildLayout(summary(), o);
      assert.deepEqual(shape(kept), shape(fresh), `after ${done.slice(-6).join(', ')} (step ${i})`);
    }
  });
}

test('typing and deleting a filter gives the rows a fresh layout has, keystroke after keystroke', () => {
  const s = summary();
  const typed = ['w', 'wo', 'wor', 'work', 'worke', 'worker', 'worker1', 'worker', 'work', 'w', '', 'm', 'me', 'mem', 'mem1', 'mem', '/me/', '/mem\\d/', ''];
  for (const f of typed) {
    for (const pinned of [[], ['s:1:0', 'c:0:3']]) {
      const o = { ...NO_OPTIONS, filter: f, pinned };
      assert.deepEqual(shape(buildLayout(s, o)), shape(buildLayout(summary(), o)), JSON.stringify(o));
    }
  }
});

test('an unchanged process keeps its rows; a filter seen before finds its rows again', () => {
  const s = summary();
  const a = buildLayout(s, { ...NO_OPTIONS, filter: 'worker' });
  buildLayout(s, { ...NO_OPTIONS, filter: 'worker1' });
  const c = buildLayout(s, { ...NO_OPTIONS, filter: 'worker' });
  assert.equal(c.rows.length, a.rows.length);
  // All but the "N empty processes" toggle, which is no process's.
  c.rows.forEach((r, i) => r.key === 'empty' || assert.equal(r, a.rows[i], `row ${i} (${r.key}) is the same object`));
  // Pinning a track of process 1 rebuilds process 1 only.
  const before = buildLayout(s, NO_OPTIONS);
  const after = buildLayout(s, { ...NO_OPTIONS, pinned: ['s:4:0'] });
  const header = (/** @type {Layout} */ l, /** @type {string} */ k) => l.rows.find((r) => r.key === k);
  assert.equal(header(after, 'P0'), header(before, 'P0'), 'process 0 kept its header row');
  assert.notEqual(header(after, 'P1'), header(before, 'P1'), 'process 1 was rebuilt');
  assert.equal(after.byTrack.get('s:4:0')?.pinned, true);
});

test('the filter is compiled once per text; regexes keep no state between names', () => {
  assert.equal(compileFilter(' mem '), compileFilter(' mem '));
  assert.equal(compileFilter(' mem ')?.key, 's:mem');
  assert.equal(compileFilter('  '), null);
  const g = filterTest('/worker/g');
  assert.deepEqual(['worker1', 'worker2', 'WORKER3', 'idle'].map((n) => g.test?.(n)), [true, true, true, false], 'no lastIndex carried over');
  assert.match(String(compileFilter('/(/')?.error), /Invalid regular expression/);
});

test('a filter extending an earlier one matches what it would match alone', () => {
  const s = summary();
  const alone = (/** @type {string} */ f) => {
    const m = matchesOf(summary(), /** @type {any} */ (compileFilter(f)));
    return [...m.values()].map((x) => [x.all, x.hit ? [...x.hit].join('') : null]);
  };
  for (const f of ['r', 're', 'ren', 'rend', 'renderer', 'renderer2', 'renderer', 'w', 'wo', 'worker1', 'worker12']) {
    const m = matchesOf(s, /** @type {any} */ (compileFilter(f)));
    assert.deepEqual([...m.values()].map((x) => [x.all, x.hit ? [...x.hit].join('') : null]), alone(f), f);
  }
});
