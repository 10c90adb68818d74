// The compare view (`tracescope view --compare BASE NEW`, `tracescope diff BASE NEW
// --view`) in chromium, on the real binary: the diff table, linked timelines,
// alignment, group highlights on both sides, the differential flame graph.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, shot } from './lib/browser.mjs';
import { startServer, startCommand } from './lib/server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const BIN = process.env.TRACESCOPE || path.join(ROOT, 'target/debug/tracescope');
const FIX = path.join(ROOT, 'tests/fixtures');
const MS = 1e6;

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Open the compare page of a server; returns the page and its console errors. */
const openCompare = (url) => openPage(browser.ctx, url, () => window.__compare.idle());

/** With the compare view of two fixtures. */
async function withCompare(base, next, check) {
  const srv = await startServer(BIN, undefined, ['--compare', path.join(FIX, base), path.join(FIX, next)]);
  try {
    const { page, errors } = await openCompare(srv.url);
    await check(page);
    assert.deepEqual(errors, [], 'no console errors');
  } finally {
    await srv.close();
  }
}

const views = (page) => page.evaluate(() => window.__compare.views());
const groups = (page) => page.evaluate(() => window.__compare.groups());
const highlights = (page) => page.evaluate(() => window.__compare.highlights());
const idle = (page) => page.evaluate(() => window.__compare.idle());
/** Equal to within a nanosecond (views are floats). */
const near = (a, b, what) => assert.ok(Math.abs(a - b) < 1, `${what}: ${a} vs ${b}`);

/**
 * Wait until `fn` (run in the page, its promise awaited) is true. Playwright's
 * waitForFunction takes a returned promise as a true value at once.
 * @param {import('playwright-core').Page} page
 */
async function until(page, fn, arg) {
  for (let i = 0; i < 200; i++) {
    if (await page.evaluate(fn, arg)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`never true: ${fn}`);
}

/** Click the table row of a group. */
async function clickGroup(page, key) {
  await page.locator('table.diff-table tbody tr', { has: page.locator(`td:text-is("${key}")`) }).click();
  await until(page, (k) => window.__compare.highlights().then((h) => h.base !== null || h.new !== null), key);
  await idle(page);
}

test('the table holds the CLI numbers, largest change first, and sorts', () => withCompare('diff-base.json', 'diff-new.json', async (page) => {
  const g = await groups(page);
  assert.deepEqual(g.map((x) => [x.key, x.change, x.delta_total]), [
    ['frame', 'changed', 6 * MS], ['layout', 'changed', 6 * MS], ['hydrate', 'added', 2 * MS],
    ['gc', 'removed', -1 * MS], ['decode', 'same', 0], ['paint', 'same', 0],
  ]);
  assert.equal(g[0].base.total_ns, 22 * MS);
  assert.equal(g[0].new.total_ns, 28 * MS);
  const status = await page.locator('.diff-status').innerText();
  assert.match(status, /^6 groups by name: 2 changed, 1 added, 1 removed, 2 same/);
  // A header click sorts by that column: Δ % descending puts the added group first.
  await page.locator('table.diff-table th[data-col="total_p"]').click();
  assert.deepEqual((await groups(page)).map((x) => x.key).slice(0, 3), ['hydrate', 'layout', 'frame']);
  await page.locator('table.diff-table th[data-col="key"]').click();
  assert.deepEqual((await groups(page)).map((x) => x.key), ['decode', 'frame', 'gc', 'hydrate', 'layout', 'paint']);
  // The filter keeps matching keys.
  await page.fill('#group-filter', 'A');
  assert.deepEqual((await groups(page)).map((x) => x.key), ['frame', 'hydrate', 'layout', 'paint']);
  const row = await page.locator('table.diff-table tbody tr').first().innerText();
  // ... Δ self, mean base and new, p95 base and new (nearest rank of 10, 12 ms and
  // 13, 15 ms), Δ max.
  assert.match(row, /frame\tchanged\t2\t2\t22 ms\t28 ms\t\+6 ms\t\+27\.3%\t0\t11 ms\t14 ms\t12 ms\t15 ms\t\+3 ms/);
  await shot(page, 'compare-table');
}));

test('both timelines on one axis: starts aligned, zoom and pan linked', () => withCompare('diff-base.json', 'diff-new.json', async (page) => {
  let v = await views(page);
  // The new trace starts 500 ms later in its own clock.
  assert.equal(v.offset, 500 * MS);
  assert.equal(v.aligned, 'starts');
  near(v.new.t0 - v.base.t0, 500 * MS, 'start offset');
  near(v.new.t1 - v.base.t1, 500 * MS, 'end offset');
  // Zoom with the wheel over the base timeline: the new one follows.
  const box = await page.locator('#base-side canvas').boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
  await page.mouse.wheel(0, -400);
  await idle(page);
  const z = await views(page);
  assert.ok(z.base.t1 - z.base.t0 < v.base.t1 - v.base.t0, 'zoomed in');
  near(z.new.t0 - z.base.t0, 500 * MS, 'offset after zoom');
  near(z.new.t1 - z.new.t0, z.base.t1 - z.base.t0, 'span after zoom');
  // Pan by dragging the new timeline: the base one follows.
  const nb = await page.locator('#new-side canvas').boundingBox();
  await page.mouse.move(nb.x + nb.width * 0.7, nb.y + 40);
  await page.mouse.down();
  await page.mouse.move(nb.x + nb.width * 0.4, nb.y + 40, { steps: 5 });
  await page.mouse.up();
  await idle(page);
  v = await views(page);
  assert.ok(v.base.t0 > z.base.t0, 'panned later');
  near(v.new.t0 - v.base.t0, 500 * MS, 'offset after pan');
  await shot(page, 'compare-linked');
}));

test('a group click outlines its slices in both timelines', () => withCompare('diff-base.json', 'diff-new.json', async (page) => {
  await clickGroup(page, 'layout');
  const h = await highlights(page);
  assert.deepEqual(h.base.ts, [1 * MS, 21 * MS]);
  assert.deepEqual(h.new.ts, [501 * MS, 521 * MS]);
  // An added group has slices only on the new side.
  await clickGroup(page, 'hydrate');
  const a = await highlights(page);
  assert.equal(a.base, null);
  assert.deepEqual(a.new.ts, [510 * MS]);
  // By thread: the worker threads (tid 2 and tid 9) matched by name.
  await page.selectOption('#group-by', 'thread');
  await until(page, () => window.__compare.groups().then((g) => g[0]?.key === 'app/main'));
  assert.deepEqual((await groups(page)).map((x) => x.key), ['app/main', 'app/worker']);
  await clickGroup(page, 'app/worker');
  const w = await highlights(page);
  assert.deepEqual(w.base.ts, [0, 5 * MS]);
  assert.deepEqual(w.new.ts, [500 * MS, 505 * MS, 510 * MS]);
  assert.equal(new Set(w.base.track).size, 1);
  await shot(page, 'compare-highlight');
}));

test('align here: a slice picked on one side under its match on the other', () => withCompare('diff-base.json', 'diff-new.json', async (page) => {
  assert.ok(await page.locator('#align-here').isDisabled());
  // The first paint: base at 6 ms, new at 509 ms.
  await clickGroup(page, 'paint');
  const h = await highlights(page);
  await page.evaluate((id) => window.__compare.select('base', id), h.base.id[0]);
  await page.locator('#align-here:not([disabled])').click();
  await until(page, () => window.__compare.views().then((v) => v.aligned !== 'starts'));
  let v = await views(page);
  assert.equal(v.offset, 503 * MS);
  assert.equal(v.aligned, 'paint #1');
  near(v.new.t0 - v.base.t0, 503 * MS, 'aligned on paint #1');
  assert.equal(await page.locator('#align-status').innerText(), 'on paint #1');
  // The second paint picked on the new side (531 ms) under the base's (28 ms).
  await page.evaluate(() => window.__compare.select('base', null));
  await page.evaluate((id) => window.__compare.select('new', id), h.new.id[1]);
  await page.locator('#align-here').click();
  await until(page, () => window.__compare.views().then((v) => v.aligned === 'paint #2'));
  assert.equal((await views(page)).offset, 531 * MS - 28 * MS);
  // A slice picked on each side: those two (the base's first paint, 6 ms).
  await page.evaluate((id) => window.__compare.select('base', id), h.base.id[0]);
  await page.locator('#align-here').click();
  await until(page, () => window.__compare.views().then((v) => v.aligned === 'paint / paint'));
  v = await views(page);
  assert.equal(v.offset, 531 * MS - 6 * MS);
  near(v.new.t0 - v.base.t0, 525 * MS, 'aligned on both');
  await page.locator('#align-starts').click();
  v = await views(page);
  assert.equal(v.offset, 500 * MS);
  near(v.new.t0 - v.base.t0, 500 * MS, 'starts again');
}));

test('the differential flame graph: frames sized by new, coloured by change', () => withCompare('diff-base.json', 'diff-new.json', async (page) => {
  const frames = await page.evaluate(() => window.__compare.flame());
  const byName = Object.fromEntries(frames.map((f) => [`${f.depth}:${f.name}`, f]));
  assert.equal(byName['0:frame'].base_total, 22 * MS);
  assert.equal(byName['0:frame'].new_total, 28 * MS);
  assert.equal(byName['1:layout'].new_self - byName['1:layout'].base_self, 6 * MS);
  // Sized by the new side: hydrate (new) is drawn, gc (removed) is not.
  assert.ok(byName['0:hydrate'].w > 0);
  assert.equal(byName['0:gc'], undefined);
  // Frame widths follow the new totals: frame 28 of 28 + 6 + 2 ms.
  const total = frames.filter((f) => f.depth === 0).reduce((s, f) => s + f.w, 0);
  assert.ok(Math.abs(byName['0:frame'].w / total - 28 / 36) < 0.01);
  // Width by base: gc is back, hydrate gone.
  await page.locator('button[data-size="base"]').click();
  const base = await page.evaluate(() => window.__compare.flame());
  assert.ok(base.some((f) => f.name === 'gc'));
  assert.ok(!base.some((f) => f.name === 'hydrate'));
  await page.locator('button[data-size="new"]').click();
  // Hover explains a frame.
  const canvas = await page.locator('canvas.diff-flame').boundingBox();
  const layout = byName['1:layout'];
  await page.mouse.move(canvas.x + layout.x + layout.w / 2, canvas.y + 18 + 9);
  const tip = await page.locator('#tooltip').innerText();
  assert.match(tip, /layout/);
  assert.match(tip, /self\s+10 ms\s+16 ms\s+\+6 ms \(\+60\.0%\)/);
  await shot(page, 'compare-flame');
}));

test('kineto runs: GPU streams and CPU threads matched across pids and tids', () => withCompare('kineto-base.json', 'kineto-new.json', async (page) => {
  const g = await groups(page);
  assert.equal(g[0].key, 'volta_sgemm_128x64_nn');
  await page.selectOption('#group-by', 'thread');
  await until(page, () => window.__compare.groups().then((g) => g.length === 3));
  assert.deepEqual((await groups(page)).map((x) => [x.key, x.change]), [
    ['python [GPU 0]/stream 7', 'changed'],
    ['python [CPU]/thread * (python)', 'changed'],
    ['python [CPU]/thread * (pt_autograd_0)', 'same'],
  ]);
  await clickGroup(page, 'python [GPU 0]/stream 7');
  const h = await highlights(page);
  assert.equal(h.base.id.length, 15);
  assert.equal(h.new.id.length, 18);
  await shot(page, 'compare-kineto');
}));

test('several runs a side: each timeline shows the run picked, the hash keeps it', async () => {
  const run = (f) => path.join(FIX, 'runs', f);
  const srv = await startCommand(BIN, ['diff', '--base', run('base-1.json'), '--base', run('base-2.json'), '--base', run('base-3.json'),
    '--new', run('new-1.json'), '--new', run('new-2.json'), '--view', '--no-open', '--port', '0']);
  try {
    const { page, errors } = await openCompare(srv.url);
    const runs = async () => {
      const r = await page.evaluate(() => window.__compare.runs());
      for (const side of [r.base, r.new]) side.file = path.basename(side.file);
      return r;
    };
    const options = (id) => page.locator(`${id} option`).allInnerTexts();
    assert.deepEqual(await options('#base-run'), ['run 1 of 3', 'run 2 of 3', 'run 3 of 3']);
    assert.deepEqual(await options('#new-run'), ['run 1 of 2', 'run 2 of 2']);
    let r = await runs();
    assert.deepEqual([r.base.run, r.base.file, r.base.processes], [1, 'base-1.json', ['app (pid 101)']]);
    assert.deepEqual([r.new.run, r.new.processes], [1, ['app (pid 101)']]);
    assert.equal(r.hash, '');
    const before = await groups(page);
    // The layout group: run 1's first layout starts at 3,628 us, run 2's at 3,572 us.
    await clickGroup(page, 'layout');
    assert.equal((await highlights(page)).base.ts[0], 3_628_000);
    await page.selectOption('#base-run', '2');
    await until(page, () => window.__compare.runs().then((x) => x.base.run === 2));
    await idle(page);
    r = await runs();
    assert.deepEqual([r.base.run, r.base.file, r.base.processes], [2, 'base-2.json', ['app (pid 102)']]);
    assert.equal(r.hash, '#base=2');
    const h = await highlights(page);
    assert.equal(h.base.ts[0], 3_572_000, 'the picked group outlined in the run shown');
    assert.equal(h.base.ts.length, 4);
    assert.deepEqual(await groups(page), before, 'the table still compares every run');
    const v = await views(page);
    assert.equal(v.aligned, 'starts');
    near(v.new.t0 - v.base.t0, 0, 'both runs start at 0');
    await page.selectOption('#new-run', '2');
    await until(page, () => window.__compare.runs().then((x) => x.new.run === 2));
    await idle(page);
    assert.equal((await runs()).hash, '#base=2&new=2');
    await shot(page, 'compare-runs');
    // Opened again with the hash: the same runs, picked in the selectors.
    const again = await openCompare(`${srv.url.replace(/#.*$/, '')}#base=3&new=2`);
    r = await again.page.evaluate(() => window.__compare.runs());
    assert.deepEqual([r.base.run, r.base.processes, r.new.run], [3, ['app (pid 103)'], 2]);
    assert.equal(await again.page.locator('#base-run').inputValue(), '3');
    assert.deepEqual([...errors, ...again.errors], []);
  } finally {
    await srv.close();
  }
});

test('diff --view prints the table and serves the same comparison', async () => {
  const srv = await startCommand(BIN, ['diff', path.join(FIX, 'diff-base.json'), path.join(FIX, 'diff-new.json'),
    '--by', 'category', '--view', '--no-open', '--port', '0']);
  try {
    assert.match(srv.stdout(), /3 groups by category: 2 changed, 0 added, 1 removed, 0 same/);
    const { page, errors } = await openCompare(srv.url);
    assert.equal(await page.locator('#group-by').inputValue(), 'category');
    assert.deepEqual((await groups(page)).map((x) => x.key), ['render', 'io', 'v8']);
    assert.deepEqual(errors, []);
  } finally {
    await srv.close();
  }
});
