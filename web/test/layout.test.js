import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildLayout, rowIndexAt, visibleRows, processLabel, filterTest, ordered, trackPlaces, foldsToShow, trackHeight, contentTop,
  NO_OPTIONS, HEADER_H, ROW_H, TRACK_PAD, EMPTY_H, COUNTER_H, INSTANT_H, FILM_H, GROUP_H, TOGGLE_H, MANY,
} from '../layout.js';

/** @typedef {import('../layout.js').LayoutOptions} LayoutOptions */

const tr = (/** @type {string} */ id, /** @type {any} */ kind, name = id, rows = 1, extra = {}) => ({ id, kind, name, rows, ...extra });

/**
 * A Chrome-like browser process (filmstrip, main thread, a worker, two empty
 * threads, 8 counters, 2 async tracks, objects), a second process, and an empty one.
 * @returns {any}
 */
function summary() {
  const counters = Array.from({ length: MANY + 2 }, (_, i) => tr(`c:${i}`, 'counter', `mem${i}`));
  return {
    processes: [
      { id: 0, pid: 1, name: 'Browser', label: 'Browser (pid 1)', labels: 'a,b', frame_url: 'https://x/',
        tracks: [tr('f:0', 'screenshots', 'Screenshots'), ...counters, tr('a:0', 'async', 'Load'), tr('a:1', 'async', 'Fetch', 2), tr('o:0', 'objects', 'Objects', 3)],
        threads: [
          { id: 0, tid: 1, name: 'CrBrowserMain', label: 'CrBrowserMain (tid 1)', main: true, tracks: [
            tr('s:0:0', 'slices', 'CrBrowserMain', 3, { instants: 4 }),
            tr('s:0:1', 'slices', 'ui-nest', 2)] },
          { id: 1, tid: 8, name: 'Worker', label: 'Worker (tid 8)', tracks: [tr('s:1:0', 'slices', 'Worker', 1), tr('p:1', 'samples', 'CPU samples', 5)] },
          { id: 2, tid: 9, name: 'Idle', label: 'Idle (tid 9)', tracks: [] },
          { id: 3, tid: 10, name: 'Idle2', label: 'Idle2 (tid 10)', tracks: [] },
        ] },
      { id: 1, pid: 2, name: null, label: 'Process 2', labels: null, frame_url: null, tracks: [],
        threads: [{ id: 4, tid: 1, name: null, label: 'Thread 1', tracks: [tr('s:4:0', 'slices', 'Thread 1', 0, { instants: 2 })] }] },
      { id: 2, pid: 3, name: 'GPU 0', label: 'GPU 0 (pid 3)', labels: null, frame_url: null, tracks: [],
        threads: [{ id: 5, tid: 0, name: null, label: 'Thread 0', tracks: [] }] },
    ],
  };
}

/** @param {Partial<LayoutOptions>} o */
const layout = (o = {}) => buildLayout(summary(), { ...NO_OPTIONS, ...o });
/** @param {import('../layout.js').Layout} l */
const kinds = (l) => l.rows.map((r) => [r.kind, r.label]);

test('work first: filmstrip, threads, empty threads folded, groups, objects; empty processes last', () => {
  const l = layout();
  assert.deepEqual(kinds(l), [
    ['process', 'Browser (pid 1) · a,b · https://x/'],
    ['track', 'Screenshots'],
    ['track', 'CrBrowserMain (tid 1)'],
    ['track', 'CrBrowserMain (tid 1) · ui-nest'],
    ['track', 'Worker (tid 8)'],
    ['track', 'Worker (tid 8) · CPU samples'],
    ['toggle', '2 empty threads'],
    ['group', 'Counters'],
    ['group', 'Async'],
    ['track', 'Load'],
    ['track', 'Fetch'],
    ['track', 'Objects'],
    ['process', 'Process 2'],
    ['track', 'Thread 1'],
    ['toggle', '1 empty process'],
  ]);
  const h = [HEADER_H, FILM_H, 3 * ROW_H + TRACK_PAD + INSTANT_H, 2 * ROW_H + TRACK_PAD, ROW_H + TRACK_PAD, 5 * ROW_H + TRACK_PAD, TOGGLE_H,
    GROUP_H, GROUP_H, ROW_H + TRACK_PAD, 2 * ROW_H + TRACK_PAD, 3 * ROW_H + TRACK_PAD, HEADER_H, TRACK_PAD + INSTANT_H, TOGGLE_H];
  let y = 0;
  l.rows.forEach((r, i) => {
    assert.equal(r.y, y, `y of row ${i}`);
    assert.equal(r.h, h[i], `h of row ${i}`);
    y += h[i];
  });
  assert.equal(l.height, y);
  const counters = l.rows.find((r) => r.key === 'P0:counters');
  assert.equal(counters?.collapsed, true, `more than ${MANY} counters start folded`);
  assert.equal(counters?.sub, `${MANY + 2} tracks`);
  assert.equal(l.rows.find((r) => r.key === 'P0:async')?.collapsed, false);
  assert.deepEqual(l.groups.get(1), { y0: l.rows[12].y, y1: l.rows[14].y });
  assert.equal(l.byTrack.has('c:0'), false);
  assert.equal(l.pinned.length, 0);
});

test('a very tall objects track gets a folded group of its own', () => {
  const s = summary();
  s.processes[0].tracks = [tr('o:0', 'objects', 'Objects', 2 * MANY + 1)];
  let l = buildLayout(s, NO_OPTIONS);
  const g = l.rows.find((r) => r.key === 'P0:objects');
  assert.deepEqual([g?.kind, g?.label, g?.sub, g?.collapsed], ['group', 'Objects', `${2 * MANY + 1} rows`, true]);
  assert.equal(l.byTrack.has('o:0'), false);
  l = buildLayout(s, { ...NO_OPTIONS, folds: { 'P0:objects': false } });
  assert.equal(l.byTrack.get('o:0')?.indent, 2);
});

test('with no thread at work, groups start open however many tracks they hold', () => {
  const s = summary();
  s.processes[0].tracks = [tr('o:0', 'objects', 'Objects', 2 * MANY + 1), ...Array.from({ length: MANY + 2 }, (_, i) => tr(`a:${i}`, 'async', `load${i}`))];
  for (const p of s.processes) for (const th of p.threads) th.tracks = [];
  const l = buildLayout(s, NO_OPTIONS);
  assert.deepEqual(['P0:async', 'P0:objects'].map((k) => l.rows.find((r) => r.key === k)?.collapsed), [false, false]);
  assert.equal(l.byTrack.get('o:0')?.indent, 2);
  assert.equal(l.byTrack.get(`a:${MANY + 1}`)?.indent, 2);
  assert.equal(buildLayout(s, { ...NO_OPTIONS, folds: { 'P0:objects': true } }).byTrack.has('o:0'), false, 'a fold the user chose stays');
});

test('slices sit under the instants row', () => {
  assert.equal(contentTop(tr('s:0:0', 'slices', 'x', 3, { instants: 1 })), TRACK_PAD / 2 + INSTANT_H);
  assert.equal(contentTop(tr('s:0:0', 'slices', 'x', 3)), TRACK_PAD / 2);
  assert.equal(trackHeight(tr('s:0:0', 'slices', 'x', 0, { instants: 1 })), TRACK_PAD + INSTANT_H, 'instants only: just the thin row');
  assert.equal(trackHeight(tr('c:0', 'counter')), COUNTER_H);
});

test('toggles and groups open; a folded process keeps only its header', () => {
  const l = layout({ folds: { 'P0:empty': false, 'P0:counters': false, 'P0:async': true, empty: false } });
  const labels = l.rows.map((r) => r.label);
  assert.deepEqual(labels.slice(6, 9), ['2 empty threads', 'Idle (tid 9)', 'Idle2 (tid 10)']);
  assert.equal(l.rows[7].kind, 'empty');
  assert.equal(l.rows[7].h, EMPTY_H);
  assert.deepEqual(labels.slice(10, 12), ['mem0', 'mem1']);
  assert.ok(!labels.includes('Load'), 'the async group is folded');
  assert.deepEqual(labels.slice(-3), ['1 empty process', 'GPU 0 (pid 3)', 'Thread 0'], 'an empty process lists its threads at once');
  const folded = layout({ folds: { P0: true } });
  assert.deepEqual(folded.rows.map((r) => r.label).slice(0, 2), ['Browser (pid 1) · a,b · https://x/', 'Process 2']);
  assert.equal(folded.rows[0].collapsed, true);
  assert.equal(folded.byTrack.has('s:0:0'), false);
});

test('pinned tracks move to the pinned area, in pin order; hidden ones go', () => {
  const l = layout({ pinned: ['s:4:0', 'c:3', 's:0:0'], hidden: ['s:1:0', 'P1', 'nonsense'] });
  assert.deepEqual(l.pinned.map((r) => [r.label, r.sub, r.y]), [
    ['Thread 1', 'Process 2', 0], ['mem3', 'Browser', TRACK_PAD + INSTANT_H], ['CrBrowserMain (tid 1)', 'Browser', TRACK_PAD + INSTANT_H + COUNTER_H],
  ]);
  assert.equal(l.pinnedH, TRACK_PAD + INSTANT_H + COUNTER_H + 3 * ROW_H + TRACK_PAD + INSTANT_H);
  assert.ok(l.pinned.every((r) => r.pinned && r.move?.parent === 'pinned'));
  assert.deepEqual(l.pinned.map((r) => r.key), ['s:4:0', 'c:3', 's:0:0']);
  assert.equal(l.byTrack.get('s:0:0')?.pinned, true);
  const main = l.rows.map((r) => r.label);
  assert.ok(!main.includes('CrBrowserMain (tid 1)'), 'a pinned track leaves the list');
  assert.ok(main.includes('CrBrowserMain (tid 1) · ui-nest'));
  assert.ok(!main.includes('Worker (tid 8)') && main.includes('Worker (tid 8) · CPU samples'), 'a hidden track goes, its sibling stays');
  assert.ok(!main.includes('Process 2'), 'a hidden process goes');
  assert.equal(l.rows.find((r) => r.key === 'P0:counters')?.sub, `${MANY + 1} tracks`);
});

test('the filter keeps matching tracks, opens what holds them, and takes /regex/', () => {
  let l = layout({ filter: 'mem1' });
  assert.deepEqual(kinds(l), [['process', 'Browser (pid 1) · a,b · https://x/'], ['group', 'Counters'], ['track', 'mem1']]);
  l = layout({ filter: '/^(idle|load)\\b/' });
  assert.deepEqual(kinds(l), [['process', 'Browser (pid 1) · a,b · https://x/'], ['toggle', '1 empty thread'], ['empty', 'Idle (tid 9)'], ['group', 'Async'], ['track', 'Load']],
    'a filter opens the toggles and groups holding what it found');
  l = layout({ filter: 'gpu' });
  assert.deepEqual(kinds(l), [['toggle', '1 empty process'], ['process', 'GPU 0 (pid 3)'], ['empty', 'Thread 0']]);
  l = layout({ filter: 'thread 0' });
  assert.deepEqual(kinds(l), [['toggle', '1 empty process'], ['process', 'GPU 0 (pid 3)'], ['empty', 'Thread 0']]);
  l = layout({ filter: 'process 2' });
  assert.deepEqual(kinds(l), [['process', 'Process 2'], ['track', 'Thread 1']], 'a process that matches shows all of itself');
  l = layout({ filter: '/[/' });
  assert.equal(l.rows.length, 0);
  assert.match(String(l.filterError), /Invalid regular expression/);
  assert.equal(filterTest('  ').test, null);
});

test('dragged order: threads, processes, group tracks', () => {
  const l = layout({ order: { root: ['P1'], P0: ['T1', 'T0'], 'P0:async': ['a:1'] } });
  assert.deepEqual(l.rows.filter((r) => r.kind === 'process').map((r) => r.key), ['P1', 'P0']);
  const p0 = l.rows.filter((r) => r.process.id === 0 && r.kind === 'track').map((r) => r.key);
  assert.deepEqual(p0, ['f:0', 's:1:0', 'p:1', 's:0:0', 's:0:1', 'a:1', 'a:0', 'o:0']);
  assert.deepEqual(l.rows.find((r) => r.key === 's:1:0')?.move, { parent: 'P0', key: 'T1' });
  assert.deepEqual(l.rows.find((r) => r.key === 'a:0')?.move, { parent: 'P0:async', key: 'a:0' });
  assert.deepEqual(ordered(['a', 'b', 'c', 'd'], (x) => x, ['c', 'zz', 'a']), ['c', 'a', 'b', 'd']);
});

test('where a track lives, and the folds that show it', () => {
  const places = trackPlaces(summary());
  assert.equal(places.get('c:2')?.group, 'P0:counters');
  assert.equal(places.get('a:0')?.group, 'P0:async');
  assert.equal(places.get('o:0')?.group, null);
  assert.equal(places.get('p:1')?.thread?.id, 1);
  assert.deepEqual(foldsToShow(places, 'c:2'), { P0: false, 'P0:counters': false });
  assert.deepEqual(foldsToShow(places, 's:4:0'), { P1: false });
  assert.equal(foldsToShow(places, 'x:1'), null);
});

test('a relayout reuses the rows of the one before, with their new places', () => {
  const s = summary();
  /** @param {Partial<LayoutOptions>} o */
  const layout = (o = {}) => buildLayout(s, { ...NO_OPTIONS, ...o });
  const a = layout();
  const main = a.byTrack.get('s:0:0');
  const b = layout({ pinned: ['s:0:0'], folds: { P0: false } });
  const worker = b.rows.find((r) => r.key === 's:1:0');
  assert.equal(worker, a.rows.find((r) => r.key === 's:1:0'), 'the same object');
  assert.equal(worker?.y, HEADER_H + FILM_H + 2 * ROW_H + TRACK_PAD, 'moved up: the main thread is pinned');
  assert.notEqual(b.byTrack.get('s:0:0'), main, 'a pinned row is a row of its own');
  assert.equal(b.byTrack.get('s:0:0')?.key, 's:0:0');
  const c = layout();
  assert.equal(c.byTrack.get('s:0:0'), main);
  assert.equal(main?.pinned, false);
});

test('a layout from the rows of earlier ones equals one built afresh, choice after choice', () => {
  const s = summary();
  /** @type {Array<Partial<LayoutOptions>>} */
  const steps = [
    {}, { pinned: ['s:1:0'] }, { pinned: ['s:1:0'], hidden: ['P1'] }, { hidden: ['P1'] }, { folds: { 'P0:counters': false } },
    { folds: { 'P0:counters': false, P0: true } }, { folds: { P0: false, empty: false } }, { filter: 'mem' }, { filter: 'mem', pinned: ['c:2'] },
    { order: { P0: ['T1', 'T0'] } }, { order: { P0: ['T1', 'T0'], root: ['P1'] }, hidden: ['s:0:1'] }, {},
  ];
  /** @param {import('../layout.js').Layout} l */
  const shape = (l) => [...l.pinned, ...l.rows].map((r) => [r.kind, r.key, r.y, r.h, r.collapsed, r.pinned, r.label].join('|'));
  for (const o of steps) {
    const cached = buildLayout(s, { ...NO_OPTIONS, ...o });
    const fresh = buildLayout(summary(), { ...NO_OPTIONS, ...o });
    assert.deepEqual(shape(cached), shape(fresh), JSON.stringify(o));
    assert.deepEqual([...cached.byTrack.keys()].sort(), [...fresh.byTrack.keys()].sort());
    assert.deepEqual([...cached.groups], [...fresh.groups]);
    assert.equal(cached.height, fresh.height);
  }
});

test('row lookup by y', () => {
  const l = layout();
  assert.equal(rowIndexAt(l.rows, 0), 0);
  assert.equal(rowIndexAt(l.rows, HEADER_H), 1);
  assert.equal(rowIndexAt(l.rows, HEADER_H - 0.5), 0);
  assert.equal(rowIndexAt(l.rows, l.height), -1);
  assert.equal(rowIndexAt(l.rows, -1), -1);
  assert.deepEqual(visibleRows(l.rows, HEADER_H + 1, HEADER_H + FILM_H + 1).map((r) => r.label), ['Screenshots', 'CrBrowserMain (tid 1)']);
});

test('process label without extras is the server label', () => {
  const p = summary().processes[1];
  assert.equal(processLabel(p), 'Process 2');
});
