// Aggregates, search and details (issue 14) in the real `tracescope view`, on our
// fixtures (tests/fixtures/aggregate-*.json): call trees, flame graph and sandwich
// of slices with the thread picker and the find box, the flame graph as SVG;
// search over names, categories, args and ids, every match reachable and listed,
// sorted by duration, zooming to instants; exact details with copy buttons.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, shot } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const FIXTURES = path.join(ROOT, 'tests/fixtures');
const BIN = process.env.TRACESCOPE || path.join(ROOT, 'target/debug/tracescope');
const US = 1000;

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

/** Open a trace file in a page; no console errors at the end. */
async function withTrace(file, check) {
  const srv = await startServer(BIN, file);
  try {
    const { page, errors } = await openPage(browser.ctx, srv.url);
    const hook = (fn, arg) => page.evaluate(fn, arg);
    const x = {
      page, hook, url: srv.url,
      idle: () => hook(() => window.__tracescope.idle()),
      settle: async () => {
        await hook(() => window.__tracescope.analysisIdle());
        await hook(() => window.__tracescope.idle());
      },
      profile: () => hook(() => window.__tracescope.profile()),
      search: () => hook(() => window.__tracescope.search()),
    };
    await check(x);
    assert.deepEqual(errors, [], 'no console errors');
  } finally {
    await srv.close();
  }
}

/** Profile rows as "<indent>name total/self xcount" in µs. */
const lines = (rows) => rows.map((r) => `${'  '.repeat(r.depth)}${r.name} ${r.total / US}/${r.self / US} x${r.count}`);

test('call trees of slices: all threads, one thread, a search', () => withTrace(path.join(FIXTURES, 'aggregate-steps.json'), async (x) => {
  const { page } = x;
  // A trace of slices only: the Profile button is there and the tab is of slices.
  await page.click('#profile-button');
  await x.settle();
  let p = await x.profile();
  assert.deepEqual([p.source, p.sources, p.view], ['slices', ['slices'], 'bottom-up']);
  assert.deepEqual(p.threads, ['python (tid 1)', 'worker (tid 7)', 'worker (tid 7)']);
  await page.click('#profile-panel button[data-view="top-down"]');
  await page.click('#profile-panel .expand-all');
  await x.settle();
  p = await x.profile();
  // Roots by total: step 2 (150), the loads of both workers (100, all self: one
  // overlaps another), step 1 (100), step 3 (50).
  assert.deepEqual(lines(p.rows), [
    'ProfilerStep#2 150/50 x1', '  aten::linear 100/20 x1', '    aten::matmul 80/80 x1',
    'load 100/100 x3',
    'ProfilerStep#1 100/30 x1', '  aten::linear 50/20 x1', '    aten::matmul 30/30 x1', '  aten::relu 20/20 x1',
    'ProfilerStep#3 50/40 x1', '  aten::relu 10/10 x1',
  ]);
  await shot(page, 'aggregate-top-down');

  // Only the python thread, with the picker's "only".
  await page.click('#profile-panel .picker-button');
  await page.locator('#profile-panel .picker-list li', { hasText: 'python' }).hover();
  await page.locator('#profile-panel .picker-list li', { hasText: 'python' }).locator('button.only').click();
  await x.settle();
  p = await x.profile();
  assert.equal(await page.locator('#profile-panel .picker-button').innerText(), 'python (tid 1) · python (pid 1) ▾');
  assert.ok(!lines(p.rows).some((l) => l.includes('load')));
  assert.equal(p.rows[0].total, 150 * US);
  await page.keyboard.press('Escape');

  // The find box keeps what it finds with its callers (and callees).
  await page.fill('#profile-panel .profile-filter', 'MATMUL');
  await page.press('#profile-panel .profile-filter', 'Enter');
  await x.settle();
  p = await x.profile();
  assert.deepEqual(lines(p.rows), [
    'ProfilerStep#2 150/50 x1', '  aten::linear 100/20 x1', '    aten::matmul 80/80 x1',
    'ProfilerStep#1 100/30 x1', '  aten::linear 50/20 x1', '    aten::matmul 30/30 x1',
  ]);
  // Bottom-up, by regex: the functions whose name ends in "relu".
  await page.check('#profile-panel .profile-regex');
  await page.fill('#profile-panel .profile-filter', 'relu$');
  await page.press('#profile-panel .profile-filter', 'Enter');
  await page.click('#profile-panel button[data-view="bottom-up"]');
  await x.settle();
  p = await x.profile();
  assert.deepEqual(lines(p.rows), ['aten::relu 30/30 x2', '  ProfilerStep#1 20/20 x1', '  ProfilerStep#3 10/10 x1']);
  await shot(page, 'aggregate-bottom-up-found');
}));

test('flame graph of slices, fading what the search does not find, exported as SVG', () => withTrace(path.join(FIXTURES, 'aggregate-steps.json'), async (x) => {
  const { page } = x;
  await x.hook(() => window.__tracescope.showProfile('flame'));
  await x.settle();
  await page.fill('#profile-panel .profile-filter', 'linear');
  await page.press('#profile-panel .profile-filter', 'Enter');
  await x.settle();
  await shot(page, 'aggregate-flame');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#profile-panel .export-svg')]);
  assert.equal(download.suggestedFilename(), 'flame.svg');
  const svg = fs.readFileSync(await download.path(), 'utf8');
  assert.ok(svg.startsWith('<?xml') && svg.includes('<svg xmlns="http://www.w3.org/2000/svg"'));
  assert.ok(svg.includes('>Slices · Whole trace</text>'), 'titled with what it shows');
  // Every node of the tree (10 in all) has a box, with its time in the tooltip.
  assert.equal((svg.match(/<rect x=/g) ?? []).length, 10);
  assert.ok(svg.includes('<title>ProfilerStep#2: 150 µs (37.5%), self 50 µs</title>'), svg.slice(0, 2000));
}));

test('call tree and sandwich tables exported as CSV, every node with raw times', () => withTrace(path.join(FIXTURES, 'aggregate-steps.json'), async (x) => {
  const { page } = x;
  await x.hook(() => window.__tracescope.showProfile('top-down'));
  await x.settle();
  const save = async () => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#profile-panel .export-csv')]);
    return { name: download.suggestedFilename(), lines: fs.readFileSync(await download.path(), 'utf8').split('\r\n') };
  };
  let csv = await save();
  assert.match(csv.name, /^profile-slices-top-down-.*\.csv$/);
  assert.equal(csv.lines[0], 'Depth,Function,Stack,Self (ns),Total (ns),Count');
  // Folded rows are exported too: the whole tree (10 nodes) and a header.
  assert.equal(csv.lines.filter(Boolean).length, 11);
  assert.ok(csv.lines.includes('0,ProfilerStep#2,ProfilerStep#2,50000,150000,1'), csv.lines.join('\n'));
  assert.ok(csv.lines.includes('2,aten::matmul,ProfilerStep#2 > aten::linear > aten::matmul,80000,80000,1'), csv.lines.join('\n'));
  assert.match(await page.textContent('#profile-panel .profile-status'), /^Saved profile-slices-top-down-.*\.csv \(10 rows\)\.$/);
  await x.hook(() => window.__tracescope.showProfile('sandwich'));
  await x.settle();
  csv = await save();
  assert.equal(csv.lines[0], 'Function,Self (ns),Total (ns),Count');
  assert.equal(csv.lines[1], 'ProfilerStep#2,50000,150000,1');
}));

test('sandwich: callers over callees of the function picked', () => withTrace(path.join(FIXTURES, 'aggregate-steps.json'), async (x) => {
  const { page } = x;
  await x.hook(() => window.__tracescope.showProfile('sandwich'));
  await x.settle();
  let s = await x.hook(() => window.__tracescope.sandwich());
  // Functions by total: step 2, then linear and load and step 1 (150, 100, 100, ...).
  assert.deepEqual(s.functions.slice(0, 3), [['ProfilerStep#2', 150 * US, 50 * US, 1], ['aten::linear', 150 * US, 40 * US, 2], ['aten::matmul', 110 * US, 110 * US, 2]]);
  await page.locator('#profile-panel table.functions tr', { hasText: 'aten::matmul' }).click();
  await page.waitForFunction(() => window.__tracescope.sandwich().callers.length === 4);
  s = await x.hook(() => window.__tracescope.sandwich());
  assert.equal(s.chosen, 'aten::matmul');
  assert.deepEqual(s.callers, [
    [0, 'aten::matmul', 110 * US], [1, 'aten::linear', 110 * US], [2, 'ProfilerStep#2', 80 * US], [2, 'ProfilerStep#1', 30 * US],
  ]);
  assert.deepEqual(s.callees, [[0, 'aten::matmul', 110 * US]]);
  await shot(page, 'aggregate-sandwich');
}));

/** A trace of 2,500 instants named Mark (every 10 µs) and 3 slices of different lengths. */
function manyMarks() {
  const ev = [];
  for (let i = 0; i < 2500; i++) ev.push(`{"ph":"i","pid":1,"tid":1,"name":"Mark","s":"t","ts":${i * 10},"args":{"n":${i}}}`);
  ev.push('{"ph":"X","pid":1,"tid":1,"name":"Marked short","ts":100,"dur":5}');
  ev.push('{"ph":"X","pid":1,"tid":1,"name":"Marked long","ts":200,"dur":900}');
  ev.push('{"ph":"X","pid":1,"tid":1,"name":"Marked mid","ts":5000,"dur":50}');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracescope-e2e-'));
  const f = path.join(dir, 'marks.json');
  fs.writeFileSync(f, `[${ev.join(',\n')}]`);
  return f;
}

test('search: every match reachable, listed, sorted by duration', () => withTrace(manyMarks(), async (x) => {
  const { page } = x;
  await page.keyboard.press('/');
  await page.keyboard.type('mark');
  // Shift+Enter from nothing goes to the last match: far past the first 1,000.
  await page.keyboard.press('Shift+Enter');
  await page.locator('#search-status', { hasText: '2,503 / 2,503' }).waitFor();
  await x.idle();
  let sel = await x.hook(() => window.__tracescope.selection());
  assert.deepEqual([sel.kind, sel.name, sel.ts], ['instant', 'Mark', 24_990 * US]);
  await page.keyboard.press('Enter');
  await page.locator('#search-status', { hasText: '1 / 2,503' }).waitFor();
  // The list: every match, drawn as it scrolls.
  await page.click('#search-list');
  let s = await x.search();
  assert.deepEqual([s.total, s.done, s.rows[0].name, s.rows[0].time, s.rows[0].chosen], [2503, true, 'Mark', '0 ns', true]);
  await page.locator('.search-scroll').evaluate((el) => (el.scrollTop = el.scrollHeight));
  await page.waitForFunction(() => document.querySelector('.search-list tr[data-i="2502"]') !== null);
  s = await x.search();
  assert.equal(s.rows.at(-1).i, 2502);
  // By duration, longest first: the three slices, then instants.
  await page.click('.search-list th[data-sort="duration"]');
  await page.waitForFunction(() => document.querySelector('.search-list th[data-sort="duration"]')?.getAttribute('aria-sort') === 'descending');
  s = await x.search();
  assert.deepEqual(s.rows.slice(0, 4).map((r) => [r.name, r.dur]), [['Marked long', '900 µs'], ['Marked mid', '50 µs'], ['Marked short', '5 µs'], ['Mark', '–']]);
  await page.locator('.search-list tr[data-i="1"]').click();
  // Picking a row fetches the item before it is selected: wait for it, not for a frame.
  await page.waitForFunction(() => window.__tracescope.selection()?.name !== 'Mark', null, { timeout: 10_000 }).catch(() => {});
  await x.idle();
  sel = await x.hook(() => window.__tracescope.selection());
  assert.deepEqual([sel.name, sel.dur], ['Marked mid', 50 * US]);
  assert.equal(await page.locator('#tabs button[aria-selected="true"]').innerText(), 'Search', 'the list stays in front');
  await shot(page, 'aggregate-search-list');
}));

test('search finds args, categories and ids, and zooms to the instant it selects', () => withTrace(path.join(FIXTURES, 'aggregate-details.json'), async (x) => {
  const { page } = x;
  const find = async (q) => {
    await page.fill('#search', q);
    await page.press('#search', 'Enter');
    await x.idle();
    return x.search();
  };
  // Enter selects the match once its item is fetched: wait for that, not for a frame.
  const selected = (name) => page.waitForFunction((n) => window.__tracescope.selection()?.name === n, name, { timeout: 10_000 }).catch(() => {});
  let s = await find('example.test');
  await selected('CommitLoad');
  assert.deepEqual([s.total, (await x.hook(() => window.__tracescope.selection())).name], [1, 'CommitLoad']);
  await page.click('#search-list');
  s = await x.search();
  assert.deepEqual(s.rows.map((r) => [r.name, r.field, r.where]), [['CommitLoad', 'args', 'CrRendererMain · Renderer (pid 3)']]);
  // The 64-bit value as written; the id of the flow leaving ParseHTML; a category.
  s = await find('9007199254740993');
  assert.deepEqual(s.rows.map((r) => [r.name, r.field]), [['FirstPaint', 'args']]);
  s = await find('0x42');
  assert.deepEqual(s.rows.map((r) => [r.name, r.field]), [['ParseHTML', 'id']]);
  s = await find('^cc$');
  assert.equal(s.total, 0, 'not a regex yet');
  await page.check('#search-regex');
  await x.idle();
  s = await find('^cc$');
  assert.deepEqual(s.rows.map((r) => [r.name, r.field]), [['DrawFrame', 'category']]);
  // An instant: selected, and the view zoomed in around it (the trace is 1.6 ms
  // long: at most 10 µs wide).
  await page.uncheck('#search-regex');
  await find('FirstPaint');
  await selected('FirstPaint');
  await page.waitForFunction(() => { const v = window.__tracescope.view(); return v.t1 - v.t0 <= 10_000; }, null, { timeout: 10_000 }).catch(() => {});
  await x.idle();
  const sel = await x.hook(() => window.__tracescope.selection());
  assert.deepEqual([sel.kind, sel.name, sel.ts], ['instant', 'FirstPaint', 1450 * US]);
  const v = await x.hook(() => window.__tracescope.view());
  assert.ok(Math.abs((v.t0 + v.t1) / 2 - 1450 * US) < 1 && v.t1 - v.t0 <= 10 * US, JSON.stringify(v));
  await shot(page, 'aggregate-search-instant');
}));

test('details: exact integers, where it ran, times to the ns, copy buttons', () => withTrace(path.join(FIXTURES, 'aggregate-details.json'), async (x) => {
  const { page } = x;
  await browser.ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(x.url).origin });
  const p = await x.hook(() => window.__tracescope.locate('CommitLoad'));
  await page.mouse.click(p.x, p.y);
  await x.idle();
  const text = await page.locator('#details').innerText();
  // 14107898137686480567 would read 14107898137686480000 through a double.
  assert.match(text, /main_frame_id: 14107898137686480567\n/);
  assert.match(text, /Thread\tCrRendererMain tid 7/);
  assert.match(text, /Process\tRenderer pid 3/);
  assert.match(text, /Start\t100 µs 1100000 ns/);
  assert.match(text, /End\t300 µs 1300000 ns/);
  assert.match(text, /Self time\t150 µs/);
  assert.match(text, /PARENTS\nRunTask 500 µs/);
  assert.match(text, /CHILDREN \(1\)\nParseHTML 50 µs/);
  await page.click('#details button[data-copy="args"]');
  await page.locator('#details button[data-copy="args"]', { hasText: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()),
    '{"data":{"main_frame_id":14107898137686480567,"url":"https://example.test/a?b=1","frame":"0x1f"},"count":3}');
  await page.click('#details button[data-copy="name"]');
  await page.locator('#details button[data-copy="name"]', { hasText: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'CommitLoad');
  await shot(page, 'aggregate-details');
  // The flow out of ParseHTML: its far end, its thread, when the arrow arrives.
  const q = await x.hook(() => window.__tracescope.locate('ParseHTML'));
  await page.mouse.click(q.x, q.y);
  await x.idle();
  await page.locator('#details', { hasText: 'FLOWS OUT' }).waitFor({ timeout: 10_000 }).catch(() => {});
  assert.match(await page.locator('#details').innerText(), /FLOWS OUT\n→ DrawFrame Compositor · 700 µs/);
  // An instant's args, exactly.
  const i = await x.hook(() => window.__tracescope.locateInstant('FirstPaint'));
  await page.mouse.click(i.x, i.y);
  await x.idle();
  // The instant's args come with a fetch after its first lines are shown.
  await page.locator('#details', { hasText: 'navigationId' }).waitFor({ timeout: 10_000 }).catch(() => {});
  assert.match(await page.locator('#details').innerText(), /navigationId: 9007199254740993/);
}));
