// Fixture tier: the analysis views on the repository's fixtures opened by the real
// `tracescope view`: range tables (M and shift-drag) with times worked out by hand,
// "select all with this name", the Profile tab against the file's own numbers, an
// object's snapshot, and a counter's range statistics. analysis.test.mjs does the
// same on the format guides' examples when ../shared is there.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, shot } from './lib/browser.mjs';
import { FIXTURES } from './lib/tiers.mjs';
import { withTrace, clip } from './lib/trace-page.mjs';
import { checkProfileTab } from './lib/profile-check.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = process.env.TRACESCOPE || path.join(ROOT, 'target/debug/tracescope');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const withFixture = (rel, check) => withTrace(browser, BIN, path.join(FIXTURES, rel), check);


// frame [0, 100) > update [10, 70) > step-1, step-2, step-3 (10 each); frame > paint [80, 95) µs.
test('nesting: M over frame lists its six slices with self times', () => withFixture('phases/nesting-out-of-file-order.json', async (x) => {
  await x.click('frame');
  await x.page.keyboard.press('m');
  await x.settle();
  assert.deepEqual(await x.hook(() => window.__tracescope.range()), { t0: 0, t1: 100000, tracks: null });
  const t = await x.table();
  assert.deepEqual(t.groups.map((g) => [g.key, g.count, g.total, g.self, g.in_range, g.avg, g.min, g.max, g.did_not_finish, g.thread_total]), [
    ['frame', 1, 100000, 25000, 100000, 100000, 100000, 100000, 0, null],
    ['update', 1, 60000, 30000, 60000, 60000, 60000, 60000, 0, null],
    ['paint', 1, 15000, 15000, 15000, 15000, 15000, 15000, 0, null],
    ['step-1', 1, 10000, 10000, 10000, 10000, 10000, 10000, 0, null],
    ['step-2', 1, 10000, 10000, 10000, 10000, 10000, 10000, 0, null],
    ['step-3', 1, 10000, 10000, 10000, 10000, 10000, 10000, 0, null],
  ]);
  const text = await x.page.locator('#range-panel').innerText();
  assert.match(text, /6 slices in 6 groups/);
  assert.match(text, /frame\s+1\s+100 µs\s+25 µs\s+100 µs\s+–\s+100 µs/);
  await x.page.locator('#range-panel th', { hasText: /^Self/ }).click();
  assert.deepEqual((await x.table()).groups.map((g) => g.key), ['update', 'frame', 'paint', 'step-1', 'step-2', 'step-3']);
  await x.page.locator('#range-panel th', { hasText: /^Name/ }).click();
  assert.deepEqual((await x.table()).groups.map((g) => g.key), ['frame', 'paint', 'step-1', 'step-2', 'step-3', 'update']);
  // A row highlights its slice on the timeline.
  await x.page.locator('#range-panel tr', { hasText: 'step-2' }).click();
  await x.page.waitForFunction(() => window.__tracescope.highlighted().length === 1);
  const drawn = (await x.drawn()).slices.find((s) => s.name === 'step-2');
  assert.deepEqual(await x.hook(() => window.__tracescope.highlighted()),
    [{ id: drawn.id, ts: 30000, dur: 10000, track: drawn.track, row: 2 }]);
  await x.idle();
  await shot(x.page, 'fixture-analysis-range-m');
}));

test('nesting: shift-drag over the thread counts what it overlaps', () => withFixture('phases/nesting-out-of-file-order.json', async (x) => {
  const track = (await x.tracks()).find((r) => r.trackKind === 'slices').track;
  await x.shiftDrag(await x.at(35000, track), await x.at(55000, track, 2));
  const r = await x.hook(() => window.__tracescope.range());
  assert.equal(r.tracks, null, 'the only track of the trace: all of them');
  assert.ok(r.t0 > 30000 && r.t0 < 40000 && r.t1 > 50000 && r.t1 < 60000, JSON.stringify(r));
  const slices = [['frame', 0, 100000, 25000], ['update', 10000, 60000, 30000], ['step-2', 30000, 10000, 10000],
    ['step-3', 50000, 10000, 10000]];
  assert.deepEqual((await x.table()).groups.map((g) => [g.key, g.count, g.total, g.self, g.in_range]),
    slices.map(([name, ts, dur, self]) => [name, 1, dur, self, clip(ts, dur, r)]));
}));

test('pid-tid-grouping: a drag over one thread counts only its slices, from the ruler every thread', () => withFixture('phases/pid-tid-grouping.json', async (x) => {
  const track = (await x.tracks()).find((r) => r.pid === 20 && r.tid === 2 && r.trackKind === 'slices').track;
  await x.shiftDrag(await x.at(2500, track), await x.at(12000, track, 1));
  const r = await x.hook(() => window.__tracescope.range());
  assert.deepEqual(r.tracks, [track]);
  // load-b [2, 11) µs holds decode-b [3, 7) µs.
  assert.deepEqual((await x.table()).groups.map((g) => [g.key, g.count, g.total, g.self, g.in_range]),
    [['load-b', 1, 9000, 5000, clip(2000, 9000, r)], ['decode-b', 1, 4000, 4000, clip(3000, 4000, r)]]);
  const a = await x.at(2500, track);
  const b = await x.at(12000, track);
  const box = await x.page.locator('#canvas').boundingBox();
  await x.shiftDrag({ x: a.x, y: box.y + 10 }, { x: b.x, y: box.y + 10 });
  const all = await x.hook(() => window.__tracescope.range());
  assert.equal(all.tracks, null);
  assert.deepEqual((await x.table()).groups.map((g) => [g.key, g.total, g.in_range]), [
    ['load-b', 9000, clip(2000, 9000, all)], ['load-a', 6000, clip(4000, 6000, all)], ['decode-b', 4000, clip(3000, 4000, all)],
    ['load-c', 3000, clip(1000, 3000, all)], ['load-d', 2000, clip(8000, 2000, all)],
  ]);
  await shot(x.page, 'fixture-analysis-range-ruler');
}));

test('tracing-started-in-browser: select all RunTask, per thread and by category', () => withFixture('phases/tracing-started-in-browser.json', async (x) => {
  await x.click('RunTask');
  await x.page.locator('#details button.select-all').click();
  await x.settle();
  let t = await x.table();
  assert.deepEqual([t.query.name, t.query.by, t.query.tracks], ['RunTask', 'thread', null]);
  // One RunTask on each of 50/51 (6 µs) and 40/41 (4 µs).
  assert.deepEqual(t.groups.map((g) => [g.count, g.total, g.self]), [[1, 6000, 6000], [1, 4000, 4000]]);
  await x.page.selectOption('#range-panel select.range-by', 'category');
  await x.settle();
  t = await x.table();
  assert.deepEqual(t.groups.map((g) => [g.key, g.count, g.total]), [['toplevel', 2, 10000]]);
  await x.page.locator('#range-panel tr[data-i="0"]').click();
  await x.page.waitForFunction(() => window.__tracescope.highlighted().length === 2);
  assert.deepEqual((await x.hook(() => window.__tracescope.highlighted())).map((h) => [h.ts, h.dur]), [[2000, 6000], [3000, 4000]]);
}));

test('profile-chunks: bottom-up and top-down trees from the file', () =>
  checkProfileTab(browser, BIN, path.join(FIXTURES, 'phases/profile-chunks.json'), 'fixture-analysis-profile', { leaf: 'compute', caller: 'start' }));

test('profile-chunks-streamed: the same complete trees across chunks', () =>
  checkProfileTab(browser, BIN, path.join(FIXTURES, 'phases/profile-chunks-streamed.json'), 'fixture-analysis-profile-streamed', { leaf: 'render', caller: 'serve' }));

test('objects: the snapshot marker opens its fields', () => withFixture('phases/objects.json', async (x) => {
  const track = (await x.tracks()).find((r) => r.trackKind === 'objects').track;
  const d = await x.drawn();
  assert.deepEqual(d.snapshots.map((s) => [s.track, s.ts, s.index]), [[track, 150000, 0]]);
  const row = d.snapshots[0].row;
  const p = await x.at(150000, track, row);
  await x.page.mouse.move(p.x, p.y);
  assert.equal(await x.page.locator('#tooltip').innerText(), 'Texture snapshot');
  await x.page.mouse.click(p.x, p.y);
  const panel = x.page.locator('#details');
  await panel.locator('details.snapshot.chosen').waitFor();
  assert.equal((await x.hook(() => window.__tracescope.selection())).kind, 'snapshot');
  const text = await panel.innerText();
  assert.match(text, /Texture/);
  assert.match(text, /Object id\s+0x20/);
  assert.match(text, /Created\s+0 ns/);
  assert.match(text, /Lifetime\s+200 µs/);
  assert.match(await panel.locator('details.snapshot.chosen').innerText(), /w: 64[^]*h: 32[^]*format: "rgba"/);
  await x.page.mouse.move(10, 10);
  await shot(x.page, 'fixture-analysis-object');
  // The bar itself opens the same object.
  const bar = await x.at(120000, track, row);
  await x.page.mouse.click(bar.x, bar.y);
  await x.idle();
  assert.equal((await x.hook(() => window.__tracescope.selection())).kind, 'object');
  await panel.locator('text=w: 64').waitFor();
}));

test('counters: a range from the ruler gives each series its statistics', () => withFixture('phases/counters.json', async (x) => {
  // memory.heap: 10 at 0, 30 at 10 µs, 20 at 20 µs.
  const track = (await x.tracks()).find((r) => r.trackKind === 'counter').track;
  const a = await x.at(6000, track);
  const b = await x.at(15000, track);
  const box = await x.page.locator('#canvas').boundingBox();
  await x.shiftDrag({ x: a.x, y: box.y + 10 }, { x: b.x, y: box.y + 10 });
  const r = await x.hook(() => window.__tracescope.range());
  assert.ok(r.t0 > 5000 && r.t0 < 10000 && r.t1 > 10000 && r.t1 < 20000, JSON.stringify(r));
  const t = await x.table();
  assert.deepEqual(t.groups, []);
  const heap = t.counters.find((c) => /memory/.test(c.name) && /heap/.test(c.name + c.series));
  assert.ok(heap, JSON.stringify(t.counters));
  // The value held at t0 (10) and the sample at 10 µs (30); time-weighted average.
  assert.deepEqual([heap.count, heap.min, heap.max, heap.first, heap.last, heap.delta], [1, 10, 30, 10, 30, 20]);
  const avg = (10 * (10000 - r.t0) + 30 * (r.t1 - 10000)) / (r.t1 - r.t0);
  assert.ok(Math.abs(heap.avg - avg) < 1e-9, `avg ${heap.avg} want ${avg}`);
  assert.match(await x.page.locator('#range-panel').innerText(), /No slices in this range/);
  await shot(x.page, 'fixture-analysis-counters');
}));
