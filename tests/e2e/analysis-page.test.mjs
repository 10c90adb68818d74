// The analysis views on the demo fixture plus a CPU profile and an object, served
// by the mock server (docs/api.md): range selection and its table, sorting and
// grouping, highlights, select-all-by-name, the profile trees and flame graph,
// stack frames, objects and snapshots.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MockModel, demoSpec } from './lib/mock-model.mjs';
import { analysisSpec } from './lib/mock-analysis.mjs';
import { startMockServer } from './lib/mock-server.mjs';
import { launch, openPage, shot } from './lib/browser.mjs';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
let srv;
let browser;
let page;
let errors;

const hook = (fn, arg) => page.evaluate(fn, arg);
const idle = () => hook(() => window.__tracescope.idle());
const settle = async () => {
  await hook(() => window.__tracescope.analysisIdle());
  await idle();
};

before(async () => {
  srv = await startMockServer(WEB, new MockModel(analysisSpec(demoSpec())));
  browser = await launch();
  ({ page, errors } = await openPage(browser.ctx, srv.url));
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

/** Client x of time t, y of the middle of a track's row. */
async function at(t, track, row = 0) {
  const box = await page.locator('#canvas').boundingBox();
  const v = await hook(() => window.__tracescope.view());
  const rows = await hook(() => window.__tracescope.tracks());
  const r = rows.find((x) => x.track === track);
  const x = box.x + box.width - (v.t1 - t) / v.nsPerPx;
  const y = r ? box.y + r.top + row * 18 + 9 : box.y + 10;
  return { x, y };
}

async function shiftDrag(a, b) {
  await page.keyboard.down('Shift');
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 3 });
  await page.mouse.move(b.x, b.y, { steps: 3 });
  await page.mouse.up();
  await page.keyboard.up('Shift');
  await settle();
}

/** Click a drawn slice by name. */
async function clickSlice(name, track) {
  const p = await hook(([n, t]) => window.__tracescope.locate(n, t), [name, track]);
  assert.ok(p, `${name} is drawn`);
  await page.mouse.click(p.x, p.y);
  await idle();
}

const table = () => hook(() => window.__tracescope.rangeTable());
const ms = 1_000_000;

test('shift-drag over one thread: its slices in the range, grouped by name', async () => {
  await shiftDrag(await at(1.2 * ms, 's:0:0'), await at(7.9 * ms, 's:0:0', 2));
  const r = await hook(() => window.__tracescope.range());
  assert.deepEqual(r.tracks, ['s:0:0']);
  assert.ok(Math.abs(r.t0 - 1.2 * ms) < 30_000 && Math.abs(r.t1 - 7.9 * ms) < 30_000, JSON.stringify(r));
  const t = await table();
  assert.deepEqual(t.query.tracks, ['s:0:0']);
  assert.deepEqual(t.groups.map((g) => [g.key, g.count, g.total, g.self, g.max, g.did_not_finish]), [
    ['RunTask', 1, 8 * ms, 2.5 * ms, 8 * ms, 0],
    ['ParseHTML', 1, 3 * ms, 1 * ms, 3 * ms, 0],
    ['EvaluateScript', 1, 2 * ms, 2 * ms, 2 * ms, 0],
    ['Layout', 1, 2 * ms, 2 * ms, 2 * ms, 0],
    ['PostMessage', 1, 0.5 * ms, 0.5 * ms, 0.5 * ms, 0],
  ]);
  // Only the part inside the range counts as "in range".
  assert.equal(t.groups[0].in_range, r.t1 - r.t0);
  assert.equal(t.groups[0].thread_total, null);
  assert.deepEqual(t.counters, [], 'the counter was not under the drag');
  assert.match(await page.locator('#range-panel').innerText(), /RunTask\s+1\s+8 ms\s+2\.5 ms/);
  await shot(page, 'analysis-range-drag');
});

test('header clicks sort numerically, stably, both ways', async () => {
  const head = (label) => page.locator('#range-panel table.range-table th', { hasText: new RegExp(`^${label}`) });
  await head('Self').click();
  assert.deepEqual((await table()).groups.map((g) => g.key), ['RunTask', 'EvaluateScript', 'Layout', 'ParseHTML', 'PostMessage']);
  await head('Self').click();
  assert.deepEqual((await table()).groups.map((g) => g.key), ['PostMessage', 'ParseHTML', 'EvaluateScript', 'Layout', 'RunTask']);
  await head('Name').click();
  assert.deepEqual((await table()).groups.map((g) => g.key), ['EvaluateScript', 'Layout', 'ParseHTML', 'PostMessage', 'RunTask']);
  assert.equal(await head('Name').getAttribute('aria-sort'), 'ascending');
});

test('a row click highlights its slices on the timeline', async () => {
  await page.locator('#range-panel tr', { hasText: 'Layout' }).click();
  await page.waitForFunction(() => window.__tracescope.highlighted().length === 1);
  assert.deepEqual(await hook(() => window.__tracescope.highlighted()), [{ id: 3, ts: 4.5 * ms, dur: 2 * ms, track: 's:0:0', row: 1 }]);
  assert.match(await page.locator('#range-panel .range-hl').innerText(), /1 highlighted/);
});

test('M over a selected slice: every track, counters too; group by thread', async () => {
  await clickSlice('RunTask', 's:0:0');
  await page.keyboard.press('m');
  await settle();
  assert.deepEqual(await hook(() => window.__tracescope.range()), { t0: 1 * ms, t1: 9 * ms, tracks: null });
  assert.deepEqual(await hook(() => window.__tracescope.highlighted()), [], 'a new range drops the highlight');
  // The sort by name stays for the new range; biggest total first again:
  await page.locator('#range-panel table.range-table th', { hasText: /^Total/ }).click();
  const t = await table();
  assert.deepEqual(t.groups.map((g) => [g.key, g.count, g.total, g.self]), [
    ['RunTask', 1, 8 * ms, 2.5 * ms], ['OnMessage', 1, 4 * ms, 3 * ms], ['ParseHTML', 1, 3 * ms, 1 * ms],
    ['EvaluateScript', 1, 2 * ms, 2 * ms], ['Layout', 1, 2 * ms, 2 * ms], ['Paint', 1, 1 * ms, 1 * ms], ['PostMessage', 1, 0.5 * ms, 0.5 * ms],
  ]);
  // JSHeapUsed: a sample every 0.5 ms of round(50 + 40 sin(i/4)); 16 of them in [1, 9) ms.
  const v = Array.from({ length: 41 }, (_, i) => Math.round(50 + 40 * Math.sin(i / 4)));
  const inRange = v.slice(2, 18);
  assert.equal(t.counters.length, 1);
  const c = t.counters[0];
  assert.deepEqual([c.name, c.count, c.min, c.max, c.first, c.last, c.delta],
    ['JSHeapUsed', 16, Math.min(...inRange), Math.max(...inRange), v[2], v[17], v[17] - v[2]]);
  assert.equal(c.avg, inRange.reduce((a, b) => a + b, 0) / 16);
  await shot(page, 'analysis-range-m');
  await page.selectOption('#range-panel select.range-by', 'thread');
  await settle();
  assert.deepEqual((await table()).groups.map((g) => [g.key, g.count, g.total]), [
    ['CrRendererMain (tid 7)', 5, 15.5 * ms], ['CrBrowserMain (tid 1)', 2, 5 * ms],
  ]);
  await page.locator('#range-panel tr', { hasText: 'CrBrowserMain' }).click();
  await page.waitForFunction(() => window.__tracescope.highlighted().length === 2);
  assert.deepEqual((await hook(() => window.__tracescope.highlighted())).map((h) => h.id), [7, 8]);
  await shot(page, 'analysis-range-by-thread');
  // M again clears the range, its tab and the highlight.
  await page.keyboard.press('m');
  assert.equal(await hook(() => window.__tracescope.range()), null);
  assert.deepEqual(await hook(() => window.__tracescope.highlighted()), []);
  assert.equal(await page.locator('#tabs button[data-tab="range"]').isHidden(), true);
});

test('select all with this name: the whole trace, per thread', async () => {
  await clickSlice('RunTask', 's:0:0');
  await page.locator('#details button.select-all').click();
  await settle();
  const t = await table();
  assert.equal(t.query.name, 'RunTask');
  assert.equal(t.query.by, 'thread');
  assert.deepEqual(t.groups.map((g) => [g.key, g.count, g.total, g.min, g.max, g.avg]),
    [['CrRendererMain (tid 7)', 2, 11 * ms, 3 * ms, 8 * ms, 5.5 * ms]]);
  assert.equal(await hook(() => window.__tracescope.range()), null, 'no range is marked');
  await page.locator('#range-panel tr', { hasText: 'CrRendererMain' }).click();
  await page.waitForFunction(() => window.__tracescope.highlighted().length === 2);
  await page.locator('#range-panel button.range-zoom').click();
  const v = await hook(() => window.__tracescope.view());
  assert.ok(v.t0 < 1 * ms && v.t1 > 13 * ms && v.t1 - v.t0 < 14 * ms, JSON.stringify(v));
  await idle();
  await shot(page, 'analysis-select-all');
});

const profile = () => hook(() => window.__tracescope.profile());
const rowsOf = (p) => p.rows.map((r) => [r.name, r.depth, r.self, r.total, r.samples]);

test('profile of the whole trace: bottom-up first, then top-down, both exact', async () => {
  await page.keyboard.press('Escape');
  await page.locator('#tabs button[data-tab="profile"]').click();
  await settle();
  let p = await profile();
  assert.equal(p.title, 'Whole trace');
  assert.equal(p.view, 'bottom-up');
  // 80 samples 0.1 ms apart: per 10, 6 in work, 2 in main, 1 in gc, 1 in (root).
  // Bottom-up roots: every function by self time, with its total (inclusive) time.
  assert.deepEqual(rowsOf(p), [['work', 0, 4.8 * ms, 4.8 * ms, 48], ['main', 0, 1.6 * ms, 6.4 * ms, 64], ['(root)', 0, 0.8 * ms, 8 * ms, 80], ['gc', 0, 0.8 * ms, 0.8 * ms, 8]]);
  assert.equal(p.rows[0].location, 'https://example.com/app.js:10:5');
  // Expanding a function shows its callers.
  await page.locator('#profile-panel tr', { hasText: 'work' }).click();
  p = await profile();
  assert.deepEqual(rowsOf(p).slice(0, 2), [['work', 0, 4.8 * ms, 4.8 * ms, 48], ['main', 1, 4.8 * ms, 4.8 * ms, 48]]);
  assert.match(await page.locator('#profile-panel').innerText(), /work\s+4\.8 ms\s+60\.0%\s+4\.8 ms\s+60\.0%\s+48\s+https:\/\/example\.com\/app\.js:10:5/);
  await shot(page, 'analysis-profile-bottom-up');
  await page.locator('#profile-panel button[data-view="top-down"]').click();
  await settle();
  p = await profile();
  assert.deepEqual(rowsOf(p), [['(root)', 0, 0.8 * ms, 8 * ms, 80], ['main', 1, 1.6 * ms, 6.4 * ms, 64], ['work', 2, 4.8 * ms, 4.8 * ms, 48], ['gc', 1, 0.8 * ms, 0.8 * ms, 8]]);
  await page.locator('#profile-panel button.collapse-all').click();
  assert.deepEqual(rowsOf(await profile()).map((r) => r[0]), ['(root)']);
  await page.locator('#profile-panel button.expand-all').click();
  assert.equal((await profile()).rows.length, 4);
});

test('flame graph: widths by total, hover explains, click zooms', async () => {
  await page.locator('#profile-panel button[data-view="flame"]').click();
  await settle();
  const c = await page.locator('#profile-panel canvas.flame').boundingBox();
  assert.equal(Math.round(c.height), 3 * 17);
  // Level 1 at 90% of the width: gc (main covers 0-80%).
  await page.mouse.move(c.x + c.width * 0.9, c.y + 17 * 1.5);
  const tip = page.locator('#tooltip');
  await tip.waitFor();
  assert.match(await tip.innerText(), /^gc 800 µs \(10\.0%\) · self 800 µs/);
  await page.mouse.move(c.x + c.width * 0.5, c.y + 17 * 2.5);
  assert.match(await tip.innerText(), /^work 4\.8 ms \(60\.0%\)[^]*app\.js:10:5/);
  await shot(page, 'analysis-flame');
  // Click main: it becomes full width, so work now spans 75% of it.
  await page.mouse.click(c.x + c.width * 0.7, c.y + 17 * 1.5);
  assert.equal((await profile()).zoom, 1);
  await page.mouse.move(c.x + c.width * 0.74, c.y + 17 * 2.5);
  assert.match(await tip.innerText(), /^work /);
  await page.mouse.move(c.x + c.width * 0.76, c.y + 17 * 2.5);
  await tip.waitFor({ state: 'hidden' });
  await shot(page, 'analysis-flame-zoomed');
  await page.locator('#profile-panel button.flame-reset').click();
  assert.equal((await profile()).zoom, -1);
});

test('a range narrows the profile to its samples and threads', async () => {
  // 2 ms to 3 ms over CrRendererMain: samples 10..19, one round of the pattern.
  await shiftDrag(await at(2 * ms, 's:0:0'), await at(3 * ms, 's:0:0'));
  await page.evaluate(() => window.__tracescope.range()).then((r) => assert.deepEqual(r.tracks, ['s:0:0']));
  await page.locator('#tabs button[data-tab="profile"]').click();
  await page.locator('#profile-panel button[data-view="bottom-up"]').click();
  await settle();
  const p = await profile();
  assert.match(p.title, /^Range /);
  assert.ok(p.samples >= 9 && p.samples <= 11, `about 10 samples: ${p.samples}`);
  assert.equal(p.rows[0].name, 'work');
  await page.keyboard.press('Escape');
  await page.keyboard.press('Escape');
  assert.equal(await hook(() => window.__tracescope.range()), null, 'Esc with nothing selected clears the range');
});

test('a stack frame of the samples track shows its function and location', async () => {
  await clickSlice('main', 'p:0');
  const d = page.locator('#details');
  await d.locator('h2', { hasText: 'main' }).waitFor();
  await d.locator('text=app.js:1:1').waitFor();
  assert.equal((await hook(() => window.__tracescope.selection())).kind, 'frame');
  assert.match(await d.innerText(), /Location\s+https:\/\/example\.com\/app\.js:1:1/);
});

test('objects: the bar opens the object, a diamond its snapshot', async () => {
  const d = await hook(() => window.__tracescope.drawn());
  assert.deepEqual(d.snapshots.map((s) => [s.track, s.ts, s.row, s.object, s.index]), [['o:0', 3 * ms, 0, 0, 0], ['o:0', 8 * ms, 0, 0, 1]]);
  await clickSlice('Widget', 'o:0');
  const panel = page.locator('#details');
  await panel.locator('h2', { hasText: 'Widget' }).waitFor();
  assert.match(await panel.innerText(), /Object id\s+w-1/);
  assert.match(await panel.innerText(), /width: 200/);
  const p = await at(8 * ms, 'o:0');
  await page.mouse.move(p.x, p.y);
  assert.equal(await page.locator('#tooltip').innerText(), 'Widget snapshot');
  await page.mouse.click(p.x, p.y);
  await panel.locator('details.snapshot.chosen').waitFor();
  assert.equal((await hook(() => window.__tracescope.selection())).kind, 'snapshot');
  assert.match(await panel.locator('details.snapshot.chosen').innerText(), /width: 300[^]*color: "red"/);
  await shot(page, 'analysis-object');
});

test('dark theme: the tables and the flame graph stay legible', async () => {
  await page.emulateMedia({ colorScheme: 'dark' });
  await clickSlice('RunTask', 's:0:0');
  await page.keyboard.press('m');
  await settle();
  await shot(page, 'analysis-range-dark');
  await page.locator('#tabs button[data-tab="profile"]').click();
  await page.locator('#profile-panel button[data-view="flame"]').click();
  await settle();
  await shot(page, 'analysis-flame-dark');
  await page.locator('#profile-panel button[data-view="top-down"]').click();
  await settle();
  await shot(page, 'analysis-profile-dark');
  await page.emulateMedia({ colorScheme: 'light' });
});

test('no console errors', () => {
  assert.deepEqual(errors, []);
});
