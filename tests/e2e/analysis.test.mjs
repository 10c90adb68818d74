// Corpus tier: the analysis views on the format guides' examples (../shared/examples)
// opened by the real `tracescope view`: range tables (shift-drag and M) with exact
// numbers from EXPECTED.md and the files, "select all with this name", the CPU
// profiles of the two ProfileChunk examples (computed from the files), the object
// snapshot of 08, and a corpus counter trace. fixtures-analysis.test.mjs checks the
// same on our own fixtures; without ../shared these tests are skipped, each saying so.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, shot } from './lib/browser.mjs';
import { SHARED, corpusTier } from './lib/tiers.mjs';
import { withTrace, clip } from './lib/trace-page.mjs';
import { checkProfileTab } from './lib/profile-check.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const EXAMPLES = process.env.EXAMPLES || path.join(SHARED, 'examples');
const CORPUS = process.env.CORPUS || path.join(SHARED, 'corpus');
const BIN = process.env.TRACESCOPE || path.join(ROOT, 'target/debug/tracescope');
const { present, test } = corpusTier(EXAMPLES, 'the analysis views on the seed examples');
const corpus = corpusTier(CORPUS, 'the analysis views on a corpus trace');
const corpusTest = corpus.test;

let browser;
before(async () => {
  if (present || corpus.present) browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Open one example in a page with helpers; no console errors at the end. */
async function withExample(rel, check, { dark = false, dir = EXAMPLES } = {}) {
  await withTrace(browser, BIN, path.join(dir, rel), (x) => check({ ...x, rows: x.tracks }), { dark });
}


test('02-duration-nesting: M over parent lists all seven slices with self times', () => withExample('seed-guide/02-duration-nesting.json', async (x) => {
  await x.click('parent');
  await x.page.keyboard.press('m');
  await x.settle();
  assert.deepEqual(await x.hook(() => window.__tracescope.range()), { t0: 1000, t1: 121000, tracks: null });
  const t = await x.table();
  // parent 120 µs minus child-1 (80) and child-2 (20); child-1 is covered by its four children.
  assert.deepEqual(t.groups.map((g) => [g.key, g.count, g.total, g.self, g.in_range, g.avg, g.min, g.max, g.did_not_finish, g.thread_total]), [
    ['parent', 1, 120000, 20000, 120000, 120000, 120000, 120000, 0, null],
    ['child-1', 1, 80000, 0, 80000, 80000, 80000, 80000, 0, null],
    ['child-1.1', 1, 20000, 20000, 20000, 20000, 20000, 20000, 0, null],
    ['child-1.2', 1, 20000, 20000, 20000, 20000, 20000, 20000, 0, null],
    ['child-1.3', 1, 20000, 20000, 20000, 20000, 20000, 20000, 0, null],
    ['child-1.4', 1, 20000, 20000, 20000, 20000, 20000, 20000, 0, null],
    ['child-2', 1, 20000, 20000, 20000, 20000, 20000, 20000, 0, null],
  ]);
  const text = await x.page.locator('#range-panel').innerText();
  assert.match(text, /7 slices in 7 groups/);
  assert.match(text, /parent\s+1\s+120 µs\s+20 µs\s+120 µs\s+–\s+120 µs/);
  // Sorting by self, then by name, from the headers.
  await x.page.locator('#range-panel th', { hasText: /^Self/ }).click();
  assert.deepEqual((await x.table()).groups.map((g) => g.key),
    ['parent', 'child-1.1', 'child-1.2', 'child-1.3', 'child-1.4', 'child-2', 'child-1']);
  await x.page.locator('#range-panel th', { hasText: /^Name/ }).click();
  assert.deepEqual((await x.table()).groups.map((g) => g.key),
    ['child-1', 'child-1.1', 'child-1.2', 'child-1.3', 'child-1.4', 'child-2', 'parent']);
  // A row highlights its slice on the timeline.
  await x.page.locator('#range-panel tr', { hasText: 'child-1.3' }).click();
  await x.page.waitForFunction(() => window.__tracescope.highlighted().length === 1);
  const drawn = (await x.hook(() => window.__tracescope.drawn())).slices.find((s) => s.name === 'child-1.3');
  assert.deepEqual(await x.hook(() => window.__tracescope.highlighted()),
    [{ id: drawn.id, ts: 60000, dur: 20000, track: drawn.track, row: 2 }]);
  await x.idle();
  await shot(x.page, 'analysis-02-range-m');
}));

test('02-duration-nesting: shift-drag over the thread counts what it overlaps', () => withExample('seed-guide/02-duration-nesting.json', async (x) => {
  const track = (await x.rows()).find((r) => r.trackKind === 'slices').track;
  await x.shiftDrag(await x.at(30000, track), await x.at(70000, track, 2));
  const r = await x.hook(() => window.__tracescope.range());
  assert.equal(r.tracks, null, 'the only track of the trace: all of them');
  assert.ok(r.t0 > 20000 && r.t0 < 40000 && r.t1 > 60000 && r.t1 < 80000, JSON.stringify(r));
  const t = await x.table();
  const slices = [['parent', 1000, 120000, 20000], ['child-1', 20000, 80000, 0], ['child-1.1', 20000, 20000, 20000],
    ['child-1.2', 40000, 20000, 20000], ['child-1.3', 60000, 20000, 20000]];
  assert.deepEqual(t.groups.map((g) => [g.key, g.count, g.total, g.self, g.in_range]),
    slices.map(([name, ts, dur, self]) => [name, 1, dur, self, clip(ts, dur, r)]));
  await x.idle();
  await shot(x.page, 'analysis-02-range-drag');
}));

test('01-pid-tid-grouping: a drag over one thread counts only its slices', () => withExample('seed-guide/01-pid-tid-grouping.json', async (x) => {
  const rows = await x.rows();
  const track = rows.find((r) => r.pid === 1 && r.tid === 2 && r.trackKind === 'slices').track;
  await x.shiftDrag(await x.at(2000, track), await x.at(12000, track, 1));
  const r = await x.hook(() => window.__tracescope.range());
  assert.deepEqual(r.tracks, [track]);
  const t = await x.table();
  // function-1-2 [1, 11) µs holds child-1-2 [5, 10) µs; nothing of the other threads.
  assert.deepEqual(t.groups.map((g) => [g.key, g.count, g.total, g.self, g.in_range]),
    [['function-1-2', 1, 10000, 5000, clip(1000, 10000, r)], ['child-1-2', 1, 5000, 5000, clip(5000, 5000, r)]]);
  // From the ruler, every thread: 1-1 [10, 20), 2-1 [5, 15), 2-2 [7, 12) µs overlap too.
  const a = await x.at(2000, track);
  const b = await x.at(12000, track);
  const box = await x.page.locator('#canvas').boundingBox();
  await x.shiftDrag({ x: a.x, y: box.y + 10 }, { x: b.x, y: box.y + 10 });
  const all = await x.hook(() => window.__tracescope.range());
  assert.equal(all.tracks, null);
  assert.deepEqual((await x.table()).groups.map((g) => [g.key, g.total, g.in_range]), [
    ['function-1-1', 10000, clip(10000, 10000, all)], ['function-1-2', 10000, clip(1000, 10000, all)],
    ['function-2-1', 10000, clip(5000, 10000, all)], ['child-1-2', 5000, clip(5000, 5000, all)], ['function-2-2', 5000, clip(7000, 5000, all)],
  ]);
  await shot(x.page, 'analysis-01-range-ruler');
}));

test('05-tracing-started-in-browser: select all RunTask, per thread and by category', () => withExample('seed-guide/05-tracing-started-in-browser.json', async (x) => {
  await x.click('RunTask');
  await x.page.locator('#details button.select-all').click();
  await x.settle();
  let t = await x.table();
  assert.deepEqual([t.query.name, t.query.by, t.query.tracks], ['RunTask', 'thread', null]);
  // One RunTask of 10 µs on each of threads 1/1 and 1/2 (tid 2's starts first).
  assert.deepEqual(t.groups.map((g) => [g.count, g.total, g.self]), [[1, 10000, 10000], [1, 10000, 10000]]);
  assert.equal(t.groups.filter((g) => /1/.test(g.key)).length, 2, JSON.stringify(t.groups.map((g) => g.key)));
  await x.page.locator('#range-panel tr[data-i="0"]').click();
  await x.page.waitForFunction(() => window.__tracescope.highlighted().length === 1);
  await x.page.selectOption('#range-panel select.range-by', 'category');
  await x.settle();
  t = await x.table();
  assert.deepEqual(t.groups.map((g) => [g.key, g.count, g.total]), [['disabled-by-default-devtools.timeline', 2, 20000]]);
  await x.page.locator('#range-panel tr[data-i="0"]').click();
  await x.page.waitForFunction(() => window.__tracescope.highlighted().length === 2);
  assert.deepEqual((await x.hook(() => window.__tracescope.highlighted())).map((h) => [h.ts, h.dur]), [[1000, 10000], [10000, 10000]]);
  await shot(x.page, 'analysis-05-select-all');
}));

/** The Profile tab of a ProfileChunk example against the file's own numbers. */
const checkProfile = (rel, shotName) =>
  checkProfileTab(browser, BIN, path.join(EXAMPLES, rel), shotName, { leaf: 'main-work', caller: 'runMainESM' });

test('06-profile-chunks-simple: bottom-up and top-down trees from the file', () => checkProfile('seed-guide/06-profile-chunks-simple.json', 'analysis-06-profile'));

test('07-profile-chunks-streamed: the same complete trees across chunks', () => checkProfile('seed-guide/07-profile-chunks-streamed.json', 'analysis-07-profile'));

test('08-object-lifecycle: the snapshot marker opens width 200', () => withExample('seed-guide/08-object-lifecycle.json', async (x) => {
  const d = await x.hook(() => window.__tracescope.drawn());
  const track = (await x.rows()).find((r) => r.trackKind === 'objects').track;
  assert.deepEqual(d.snapshots.map((s) => [s.track, s.ts, s.row, s.index]), [[track, 15000, 0, 0]]);
  const p = await x.at(15000, track);
  await x.page.mouse.move(p.x, p.y);
  assert.equal(await x.page.locator('#tooltip').innerText(), 'MyWidget snapshot');
  await x.page.mouse.click(p.x, p.y);
  const panel = x.page.locator('#details');
  await panel.locator('details.snapshot.chosen').waitFor();
  assert.equal((await x.hook(() => window.__tracescope.selection())).kind, 'snapshot');
  const text = await panel.innerText();
  assert.match(text, /MyWidget/);
  assert.match(text, /Object id\s+widget-123/);
  assert.match(text, /Created\s+0 ns/);
  assert.match(text, /Lifetime\s+10 µs/);
  assert.match(await panel.locator('details.snapshot.chosen').innerText(), /width: 200[^]*height: 100[^]*color: "blue"/);
  await x.page.mouse.move(10, 10);
  await shot(x.page, 'analysis-08-object');
  // The bar itself opens the same object.
  const bar = await x.at(12000, track);
  await x.page.mouse.click(bar.x, bar.y);
  await x.idle();
  assert.equal((await x.hook(() => window.__tracescope.selection())).kind, 'object');
  await panel.locator('text=width: 200').waitFor();
}));

corpusTest('corpus counters: a range from the ruler gives the counter its own table', () => withExample('perfetto/difftests/parser_parsing_tests__counters_json_counters.json', async (x) => {
  // ctr.cats: 0 at 0, 10 at 10 µs, 0 at 20 µs.
  const track = (await x.rows()).find((r) => r.trackKind === 'counter').track;
  const a = await x.at(5000, track);
  const b = await x.at(15000, track);
  const box = await x.page.locator('#canvas').boundingBox();
  await x.shiftDrag({ x: a.x, y: box.y + 10 }, { x: b.x, y: box.y + 10 });
  const r = await x.hook(() => window.__tracescope.range());
  assert.ok(r.t0 > 0 && r.t0 < 10000 && r.t1 > 10000 && r.t1 < 20000, JSON.stringify(r));
  const t = await x.table();
  assert.deepEqual(t.groups, []);
  assert.equal(t.counters.length, 1);
  const c = t.counters[0];
  // The value held at t0 (0) and the sample at 10 µs (10); time-weighted average.
  assert.deepEqual([c.count, c.min, c.max, c.first, c.last, c.delta], [1, 0, 10, 0, 10, 10]);
  assert.ok(Math.abs(c.avg - (10 * (r.t1 - 10000)) / (r.t1 - r.t0)) < 1e-9, `avg ${c.avg}`);
  assert.match(c.name, /ctr/);
  const text = await x.page.locator('#range-panel').innerText();
  assert.match(text, /No slices in this range/);
  assert.match(text, /ctr[^\n]*\s+1\s+0\s+10\s/);
  await shot(x.page, 'analysis-corpus-counters');
}, { dir: CORPUS }));
