// The timeline as a workbench, on the fixtures of tests/fixtures/timeline opened by
// the real `tracescope view`: the work first (main thread, busy threads, empty
// ones behind toggles, foldable groups), pin, hide, filter, fold all, drag to
// reorder, resize the labels, instants on their own row with full details, the
// screenshot filmstrip, counters from UpdateCounters and PyTorch [memory], the URL
// hash, light/dark, range tables to the clipboard and CSV, empty traces.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, shot } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const FIXTURES = path.join(ROOT, 'tests/fixtures/timeline');
const BIN = process.env.TRACESCOPE || path.join(ROOT, 'target/debug/tracescope');
const MS = 1_000_000;

let browser;
let srv;
let page;
let errors;

const hook = (fn, arg) => page.evaluate(fn, arg);
const idle = () => hook(() => window.__tracescope.idle());
const rows = () => hook(() => window.__tracescope.tracks());
const state = () => hook(() => window.__tracescope.state());
const labels = async () => (await rows()).map((r) => r.label);
const rowOf = async (label) => {
  const r = (await rows()).find((x) => x.label === label);
  assert.ok(r, `a row "${label}": ${JSON.stringify(await labels())}`);
  return r;
};

/** Client point of a row's label, and of its pin and hide buttons. */
async function labelAt(key) {
  const p = await hook((k) => window.__tracescope.locateLabel(k), key);
  assert.ok(p, `a label for ${key}`);
  return { ...p, pin: { x: p.right - 2 * 18 - 4 + 9, y: p.y }, hide: { x: p.right - 18 - 4 + 9, y: p.y } };
}

async function click(p) {
  await page.mouse.move(p.x, p.y);
  await page.mouse.click(p.x, p.y);
  await idle();
}

/** Client point of time t in a row: on its first slice row, or `dy` below its top. */
async function at(t, row, dy = null) {
  const box = await page.locator('#canvas').boundingBox();
  const v = await hook(() => window.__tracescope.view());
  return { x: box.x + box.width - (v.t1 - t) / v.nsPerPx, y: box.y + (dy === null ? row.top + 9 : row.canvasY + dy) };
}

before(async () => {
  browser = await launch();
  srv = await startServer(BIN, path.join(FIXTURES, 'chrome-workbench.json'));
  await browser.ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(srv.url).origin });
  ({ page, errors } = await openPage(browser.ctx, srv.url));
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

test('the work first: main thread, busy threads, empty ones behind toggles, groups', async () => {
  const r = await rows();
  assert.deepEqual(r.filter((x) => x.indent <= 1 && !x.pinned).map((x) => [x.kind, x.label]), [
    ['process', 'Renderer (pid 200) https://example.com/'],
    ['track', 'CrRendererMain (tid 202)'],
    ['track', 'Compositor (tid 203)'],
    ['track', 'Chrome_ChildIOThread (tid 201)'],
    ['toggle', '2 empty threads'],
    ['group', 'Counters'],
    ['group', 'Async'],
    ['process', 'Browser (pid 100)'],
    ['track', 'Screenshots'],
    ['track', 'CrBrowserMain (tid 100)'],
    ['track', 'Chrome_IOThread (tid 101)'],
    ['process', 'GPU Process (pid 300)'],
    ['track', 'CrGpuMain (tid 300)'],
    ['toggle', '1 empty process'],
  ]);
  assert.equal(r.find((x) => x.label === 'Async').collapsed, true, '10 async tracks start folded');
  assert.equal(r.find((x) => x.label === 'Counters').collapsed, false);
  await shot(page, 'workbench-layout');
  // The empty threads' toggle shows and hides them.
  const toggle = r.find((x) => x.label === '2 empty threads');
  await click(await labelAt(toggle.key));
  let now = await labels();
  const i = now.indexOf('2 empty threads');
  assert.deepEqual(now.slice(i + 1, i + 3), ['ThreadPoolForegroundWorker (tid 204)', 'ThreadPoolServiceThread (tid 205)']);
  await click(await labelAt(toggle.key));
  assert.ok(!(await labels()).includes('ThreadPoolServiceThread (tid 205)'));
  // The async group unfolds to its ten tracks.
  const asyncKey = r.find((x) => x.label === 'Async').key;
  await click(await labelAt(asyncKey));
  now = await labels();
  assert.deepEqual(now.slice(now.indexOf('Async') + 1, now.indexOf('Async') + 11), Array.from({ length: 10 }, (_, k) => `Fetch${k}`));
  await click(await labelAt(asyncKey));
  assert.equal((await rowOf('Async')).collapsed, true);
  assert.deepEqual((await state()).folds, { [asyncKey]: true, [toggle.key]: true });
});

test('instants have a row of their own and full details', async () => {
  const main = await rowOf('CrRendererMain (tid 202)');
  assert.equal(main.instants, 11);
  const d = await hook(() => window.__tracescope.drawn());
  const ins = d.instants.filter((x) => x.track === main.track);
  assert.deepEqual(ins.filter((x) => x.name !== 'UpdateCounters').sort((a, b) => a.ts - b.ts).map((x) => [x.name, x.ts, x.scope]),
    [['MarkLoad', 15 * MS, 't'], ['FirstContentfulPaint', 400 * MS, 'p'], ['navigationStart', 402 * MS, 't']]);
  // The slices start under the instants row: a flag never covers a slice's name.
  const p = await hook(() => window.__tracescope.locateInstant('MarkLoad'));
  const box = await page.locator('#canvas').boundingBox();
  assert.ok(p.y > box.y + main.canvasY && p.y + 5 < box.y + main.top, 'the flag is in the row above the slices');
  assert.equal(main.top - main.canvasY, 2 + 10);
  await click(p);
  await page.locator('#details h2', { hasText: 'MarkLoad' }).waitFor();
  const text = await page.locator('#details').innerText();
  assert.match(text, /Category\s+blink\.user_timing/);
  assert.match(text, /Start\s+15 ms/);
  assert.match(text, /Scope\s+thread \(ph i\)/);
  assert.match(text, /Thread\s+CrRendererMain \(tid 202\)/);
  assert.match(text, /Process\s+Renderer \(pid 200\) https:\/\/example\.com\//);
  assert.match(text, /page: "https:\/\/example\.com\/"/);
  assert.match(text, /isMainFrame: true/);
  await page.locator('#details details.raw summary').click();
  assert.match(await page.locator('#details details.raw pre').innerText(), /"main_frame_id":14107898137686480567/);
  const sel = await hook(() => window.__tracescope.selection());
  assert.deepEqual([sel.kind, sel.name, sel.row], ['instant', 'MarkLoad', -1]);
  await shot(page, 'workbench-instant');
  await page.keyboard.press('Escape');
});

test('screenshots: a filmstrip with a hover preview; a click shows the image', async () => {
  const film = await rowOf('Screenshots');
  assert.equal(film.trackKind, 'screenshots');
  // The screenshots are drawn: blue progress bars in the strip (once their images
  // are decoded, which may take a few frames: asked again until then).
  const bluePixels = () => page.evaluate(([top, h]) => {
    const c = document.querySelector('#canvas');
    const dpr = window.devicePixelRatio || 1;
    const img = c.getContext('2d').getImageData(0, Math.round(top * dpr), c.width, Math.round(h * dpr)).data;
    let n = 0;
    for (let i = 0; i < img.length; i += 4) if (img[i] < 60 && img[i + 1] > 80 && img[i + 1] < 120 && img[i + 2] > 200) n++;
    return n;
  }, [film.canvasY, film.h]);
  let blue = await bluePixels();
  for (let tries = 0; blue <= 50 && tries < 50; tries++) {
    await page.waitForTimeout(100);
    blue = await bluePixels();
  }
  assert.ok(blue > 50, `blue pixels of the screenshots: ${blue}`);
  const p = await at(455 * MS, film, film.h / 2);
  await page.mouse.move(p.x, p.y);
  const tip = page.locator('#tooltip');
  await tip.locator('img.shot-preview').waitFor();
  await page.waitForFunction(() => document.querySelector('#tooltip img')?.naturalWidth === 80);
  assert.match(await tip.innerText(), /Screenshot at 390 ms/);
  await shot(page, 'workbench-filmstrip-hover');
  await page.mouse.click(p.x, p.y);
  await page.locator('#details img.shot').waitFor();
  await page.waitForFunction(() => document.querySelector('#details img.shot')?.naturalHeight === 50);
  assert.match(await page.locator('#details').innerText(), /Taken at\s+390 ms[\s\S]*Shown for\s+100 ms/);
  await shot(page, 'workbench-screenshot-details');
  await page.keyboard.press('Escape');
});

test('UpdateCounters become counter tracks', async () => {
  const heap = await rowOf('jsHeapSizeUsed (UpdateCounters)');
  assert.equal(heap.trackKind, 'counter');
  const p = await at(455 * MS, heap, heap.h / 2);
  await page.mouse.move(p.x, p.y);
  const tip = page.locator('#tooltip');
  await tip.waitFor();
  assert.equal(await tip.innerText(), 'jsHeapSizeUsed (UpdateCounters) 2,000,000');
  await page.mouse.move(5, 5);
});

test('pin: the track moves to a pinned area that stays while the rest scrolls', async () => {
  await page.setViewportSize({ width: 1400, height: 600 });
  await idle();
  const comp = await rowOf('Compositor (tid 203)');
  await page.mouse.move((await labelAt(comp.key)).x, (await labelAt(comp.key)).y);
  await idle();
  await shot(page, 'workbench-hover-buttons');
  await click((await labelAt(comp.key)).pin);
  assert.deepEqual((await state()).pinned, [comp.track]);
  let r = await rows();
  assert.deepEqual(r.filter((x) => x.pinned).map((x) => x.label), ['Compositor (tid 203)']);
  assert.ok(!r.filter((x) => !x.pinned).some((x) => x.label === 'Compositor (tid 203)'), 'it left the list');
  const g = await hook(() => window.__tracescope.geometry());
  const pinnedTop = r.find((x) => x.pinned).top;
  const mainBefore = (await rowOf('CrBrowserMain (tid 100)')).top;
  const scrolled = await page.evaluate(() => {
    const sc = /** @type {HTMLElement} */ (document.getElementById('scroller'));
    sc.scrollTop = 150;
    return sc.scrollTop;
  });
  assert.ok(scrolled > 50, `scrolled ${scrolled}`);
  await idle();
  r = await rows();
  assert.equal(r.find((x) => x.pinned).top, pinnedTop, 'the pinned track stays put');
  assert.equal(r.find((x) => x.label === 'CrBrowserMain (tid 100)').top, mainBefore - scrolled, 'the others scroll');
  assert.equal(g.mainTop, 26 + g.pinnedH);
  await shot(page, 'workbench-pinned-scrolled');
  await page.evaluate(() => (document.getElementById('scroller').scrollTop = 0));
  // Pin the main thread too; the pinned area keeps the pin order.
  const main = await rowOf('CrRendererMain (tid 202)');
  await click((await labelAt(main.key)).pin);
  assert.deepEqual((await rows()).filter((x) => x.pinned).map((x) => x.label), ['Compositor (tid 203)', 'CrRendererMain (tid 202)']);
  // Unpin from the pinned area.
  await click((await labelAt(comp.key)).pin);
  await click((await labelAt(main.key)).pin);
  assert.deepEqual((await state()).pinned, []);
  assert.deepEqual((await labels()).slice(1, 3), ['CrRendererMain (tid 202)', 'Compositor (tid 203)']);
  await page.setViewportSize({ width: 1400, height: 800 });
  await idle();
});

test('hide and bring back tracks and processes', async () => {
  const io = await rowOf('Chrome_ChildIOThread (tid 201)');
  await click((await labelAt(io.key)).hide);
  assert.ok(!(await labels()).includes('Chrome_ChildIOThread (tid 201)'));
  const button = page.locator('#hidden-button');
  assert.equal(await button.innerText(), '1 hidden');
  const gpu = await rowOf('GPU Process (pid 300)');
  await click((await labelAt(gpu.key)).hide);
  assert.ok(!(await labels()).some((l) => l.startsWith('GPU Process') || l.startsWith('CrGpuMain')));
  assert.deepEqual((await state()).hidden, [io.key, gpu.key]);
  await button.click();
  const popup = page.locator('#hidden-popup');
  assert.match(await popup.innerText(), /Chrome_ChildIOThread \(tid 201\) · Renderer \(pid 200\)[\s\S]*GPU Process \(pid 300\) \(process\)/);
  await shot(page, 'workbench-hidden');
  await popup.locator('button.unhide').first().click();
  await idle();
  assert.ok((await labels()).includes('Chrome_ChildIOThread (tid 201)'));
  await popup.locator('button.unhide-all').click();
  await idle();
  assert.deepEqual((await state()).hidden, []);
  assert.ok(await button.isHidden());
  assert.ok(await popup.isHidden());
});

test('the track filter: a substring, a /regex/, a bad regex', async () => {
  const box = page.locator('#track-filter');
  await box.fill('compositor');
  await page.waitForFunction(() => window.__tracescope.state().filter === 'compositor');
  await idle();
  assert.deepEqual(await labels(), ['Renderer (pid 200) https://example.com/', 'Compositor (tid 203)']);
  assert.equal(await page.locator('#track-filter-status').innerText(), '1 track shown');
  await box.fill('/^Cr/');
  await page.waitForFunction(() => window.__tracescope.state().filter === '/^Cr/');
  await idle();
  assert.deepEqual((await rows()).filter((r) => r.kind === 'track').map((r) => r.label),
    ['CrRendererMain (tid 202)', 'CrBrowserMain (tid 100)', 'CrGpuMain (tid 300)']);
  await shot(page, 'workbench-filter');
  await box.fill('/[/');
  await page.locator('#track-filter-status', { hasText: 'bad regex' }).waitFor();
  assert.deepEqual(await labels(), []);
  await box.press('Escape');
  await idle();
  assert.equal((await state()).filter, '');
  assert.equal((await labels())[0], 'Renderer (pid 200) https://example.com/');
});

test('collapse all and expand all', async () => {
  await page.locator('#collapse-all').click();
  await idle();
  assert.deepEqual((await rows()).map((r) => [r.kind, r.collapsed]), [
    ['process', true], ['process', true], ['process', true], ['toggle', true],
  ]);
  await page.locator('#expand-all').click();
  await idle();
  const now = await labels();
  assert.ok(now.includes('Fetch9') && now.includes('documents (UpdateCounters)'), 'groups open too');
  assert.ok(!now.includes('ThreadPoolServiceThread (tid 205)'), 'empty threads stay behind their toggle');
  await page.locator('#collapse-all').click();
  await page.locator('#expand-all').click();
  const asyncKey = (await rowOf('Async')).key;
  await click(await labelAt(asyncKey));
});

test('drag a thread to reorder it; drag the label edge to resize', async () => {
  const io = await rowOf('Chrome_ChildIOThread (tid 201)');
  const main = await rowOf('CrRendererMain (tid 202)');
  const from = await labelAt(io.key);
  const to = await labelAt(main.key);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(from.x, to.y - 5, { steps: 6 });
  await shot(page, 'workbench-dragging');
  await page.mouse.up();
  await idle();
  assert.deepEqual((await labels()).slice(1, 4), ['Chrome_ChildIOThread (tid 201)', 'CrRendererMain (tid 202)', 'Compositor (tid 203)']);
  const order = (await state()).order;
  const pk = Object.keys(order).find((k) => /^P\d+$/.test(k));
  assert.equal(order[pk].length, 3);
  // Move it back below the compositor.
  const comp = await labelAt((await rowOf('Compositor (tid 203)')).key);
  const again = await labelAt(io.key);
  await page.mouse.move(again.x, again.y);
  await page.mouse.down();
  await page.mouse.move(again.x, comp.y + 8, { steps: 6 });
  await page.mouse.up();
  await idle();
  assert.deepEqual((await labels()).slice(1, 4), ['CrRendererMain (tid 202)', 'Compositor (tid 203)', 'Chrome_ChildIOThread (tid 201)']);

  const g0 = await hook(() => window.__tracescope.geometry());
  const box = await page.locator('#canvas').boundingBox();
  await page.mouse.move(box.x + g0.labelW, box.y + 200);
  await page.mouse.down();
  await page.mouse.move(box.x + g0.labelW + 120, box.y + 200, { steps: 5 });
  await page.mouse.up();
  await idle();
  const g1 = await hook(() => window.__tracescope.geometry());
  assert.equal(g1.labelW, g0.labelW + 120);
  assert.equal((await state()).labelW, g1.labelW);
  await shot(page, 'workbench-wide-labels');
});

test('the URL hash keeps the view; a reload or the same URL elsewhere restores it', async () => {
  // A view to keep: zoomed, a slice selected, a range marked, a pin, a hidden
  // track, a group opened, the Range tab open.
  await hook((ms) => window.__tracescope.setView(50 * ms, 250 * ms), MS);
  await idle();
  const p = await hook(() => window.__tracescope.locate('EvaluateScript'));
  await click(p);
  await page.locator('#details h2', { hasText: 'EvaluateScript' }).waitFor();
  await hook((ms) => window.__tracescope.selectRange(100 * ms, 200 * ms), MS);
  const io = await rowOf('Chrome_ChildIOThread (tid 201)');
  await click((await labelAt(io.key)).hide);
  const comp = await rowOf('Compositor (tid 203)');
  await click((await labelAt(comp.key)).pin);
  await click(await labelAt((await rowOf('Async')).key));
  const before = await state();
  assert.equal(before.tab, 'range');
  await page.waitForFunction(() => location.hash.includes('tab=range') && location.hash.includes('pin='));
  const url = page.url();
  assert.match(url, /#k=/);

  await page.reload();
  await page.evaluate(() => window.__tracescope.idle());
  await page.evaluate(() => window.__tracescope.analysisIdle());
  const after = await state();
  assert.deepEqual(after, before);
  assert.equal(await page.locator('#tabs button[aria-selected="true"]').innerText(), 'Range');
  assert.deepEqual((await hook(() => window.__tracescope.rangeTable())).groups.map((g) => g.key).sort(),
    ['BrowserTask', 'DrawFrame', 'EvaluateScript', 'IPC', 'Layout', 'RunTask', 'SwapBuffers']);
  await shot(page, 'workbench-restored');

  // The same URL in another tab, then the Details tab: the selection came back too.
  const other = await openPage(browser.ctx, url);
  await other.page.evaluate(() => window.__tracescope.analysisIdle());
  assert.deepEqual(await other.page.evaluate(() => window.__tracescope.state()), before);
  await other.page.locator('#tabs button', { hasText: 'Details' }).click();
  await other.page.locator('#details h2', { hasText: 'EvaluateScript' }).waitFor();
  assert.deepEqual(other.errors, []);
  await other.page.close();

  // A hash of another trace is not applied.
  await page.goto(url.replace(/k=[^&]+/, 'k=other'));
  await page.reload();
  await page.evaluate(() => window.__tracescope.idle());
  assert.deepEqual((await state()).pinned, []);
  await page.goto(srv.url);
  await page.reload();
  await page.evaluate(() => window.__tracescope.idle());
});

test('light and dark: a toggle beside the system setting, kept across reloads', async () => {
  const button = page.locator('#theme-button');
  assert.equal(await button.innerText(), '◐ System');
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  const canvasPx = () => page.evaluate(() => {
    const c = document.querySelector('#canvas');
    return Array.from(c.getContext('2d').getImageData(c.width - 5, c.height - 5, 1, 1).data);
  });
  await button.click();
  assert.equal(await button.innerText(), '☀ Light');
  await button.click();
  assert.equal(await button.innerText(), '☾ Dark');
  await idle();
  assert.equal(await bg(), 'rgb(22, 24, 29)');
  assert.ok((await canvasPx()).slice(0, 3).every((v) => v < 60), 'the canvas is dark');
  await page.reload();
  await page.evaluate(() => window.__tracescope.idle());
  assert.equal(await page.locator('#theme-button').innerText(), '☾ Dark');
  assert.equal(await bg(), 'rgb(22, 24, 29)');
  await shot(page, 'workbench-dark');
  // Back to the system's setting, which the page follows; a choice overrides it.
  await page.locator('#theme-button').click();
  assert.equal(await page.locator('#theme-button').innerText(), '◐ System');
  assert.equal(await bg(), 'rgb(255, 255, 255)');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction(() => getComputedStyle(document.body).backgroundColor === 'rgb(22, 24, 29)');
  await page.locator('#theme-button').click();
  assert.equal(await page.locator('#theme-button').innerText(), '☀ Light');
  assert.equal(await bg(), 'rgb(255, 255, 255)');
  await page.locator('#theme-button').click();
  await page.locator('#theme-button').click();
  assert.equal(await page.locator('#theme-button').innerText(), '◐ System');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.waitForFunction(() => getComputedStyle(document.body).backgroundColor === 'rgb(255, 255, 255)');
});

test('range tables go to the clipboard and to CSV, every row, raw values', async () => {
  await hook((ms) => window.__tracescope.selectRange(0, 800 * ms), MS);
  const panel = page.locator('#range-panel');
  await panel.locator('button[data-export="groups:copy"]').click();
  await panel.locator('.range-hl', { hasText: 'Copied 7 rows' }).waitFor();
  const tsv = await page.evaluate(() => navigator.clipboard.readText());
  const lines = tsv.split('\r\n');
  assert.equal(lines[0], 'Name\tCount\tTotal (ns)\tSelf (ns)\tIn range (ns)\tThread time (ns)\tAvg (ns)\tMin (ns)\tMax (ns)\tDid not finish');
  assert.equal(lines[1], 'RunTask\t8\t480000000\t80000000\t480000000\t\t60000000\t60000000\t60000000\t0');
  assert.equal(lines.length, 9, 'a header, 7 names, a final line end');
  // Sorted by count: the export follows the table's order.
  await panel.locator('table.range-table th[data-col="count"]').click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    panel.locator('button[data-export="groups:csv"]').click(),
  ]);
  assert.equal(download.suggestedFilename(), 'range-0-800000000-by-name.csv');
  const csv = fs.readFileSync(await download.path(), 'utf8').split('\r\n');
  assert.equal(csv[0], 'Name,Count,Total (ns),Self (ns),In range (ns),Thread time (ns),Avg (ns),Min (ns),Max (ns),Did not finish');
  assert.equal(csv[1], 'IPC,16,24000000,24000000,24000000,,1500000,1000000,2000000,0');
  await panel.locator('button[data-export="counters:csv"]').waitFor();
  const [counters] = await Promise.all([
    page.waitForEvent('download'),
    panel.locator('button[data-export="counters:csv"]').click(),
  ]);
  const c = fs.readFileSync(await counters.path(), 'utf8').split('\r\n');
  assert.equal(c[0], 'Counter,Samples,Min,Max,Avg,First,Last,Delta');
  assert.equal(c.length, 4, 'two series of Memory');
  await shot(page, 'workbench-export');
  await page.keyboard.press('Escape');
});

test('no console errors on the Chrome-like trace', () => {
  assert.deepEqual(errors, []);
});

test('an empty trace says so; a metadata-only one lists its names', async () => {
  const empty = await startServer(BIN, path.join(FIXTURES, 'empty.json'));
  try {
    const o = await openPage(browser.ctx, empty.url);
    const status = o.page.locator('#status');
    assert.match(await status.innerText(), /This trace is empty: it holds no events\./);
    assert.equal(await o.page.evaluate(() => window.__tracescope.isEmpty()), true);
    assert.ok(await o.page.locator('#trackbar').isHidden());
    await shot(o.page, 'workbench-empty');
    assert.deepEqual(o.errors, []);
    await o.page.close();
  } finally {
    await empty.close();
  }
  const meta = await startServer(BIN, path.join(ROOT, 'tests/fixtures/phases/metadata.json'));
  try {
    const o = await openPage(browser.ctx, meta.url);
    assert.match(await o.page.locator('#status').innerText(), /Nothing to draw: none of this trace’s events has a time\./);
    const names = (await o.page.evaluate(() => window.__tracescope.tracks())).map((r) => r.label);
    assert.ok(names.some((l) => l.includes('browser')) && names.some((l) => l.includes('CrBrowserMain')), JSON.stringify(names));
    await shot(o.page, 'workbench-metadata-only');
    assert.deepEqual(o.errors, []);
    await o.page.close();
  } finally {
    await meta.close();
  }
});

test('a PyTorch-like trace: [memory] counters; the empty GPU processes wait behind a toggle', async () => {
  const k = await startServer(BIN, path.join(FIXTURES, 'kineto-memory.json'));
  try {
    const o = await openPage(browser.ctx, k.url);
    const r = await o.page.evaluate(() => window.__tracescope.tracks());
    assert.deepEqual(r.map((x) => [x.kind, x.label]), [
      ['process', 'python3 (pid 1234)'],
      ['track', 'thread 1234 (python3) (tid 1234)'],
      ['group', 'Counters'],
      ['track', '[memory] Total Allocated (CPU)'],
      ['track', '[memory] Total Allocated (cuda:0)'],
      ['track', '[memory] Total Reserved (CPU)'],
      ['track', '[memory] Total Reserved (cuda:0)'],
      ['toggle', '7 empty processes'],
    ]);
    const d = await o.page.evaluate(() => window.__tracescope.drawn());
    const cuda = r.find((x) => x.label === '[memory] Total Allocated (cuda:0)').track;
    assert.deepEqual(d.counters.filter((c) => c.track === cuda).map((c) => c.value), [65536, 131072, 196608]);
    await shot(o.page, 'workbench-kineto');
    assert.deepEqual(o.errors, []);
    await o.page.close();
  } finally {
    await k.close();
  }
});

test('a trace of objects only opens with its objects shown, not folded away', async () => {
  const k = await startServer(BIN, path.join(FIXTURES, 'objects-only.json'));
  try {
    const o = await openPage(browser.ctx, k.url);
    const r = await o.page.evaluate(() => window.__tracescope.tracks());
    assert.deepEqual(r.map((x) => [x.kind, x.label, x.collapsed]), [
      ['process', 'Renderer (pid 7)', false],
      ['toggle', '2 empty threads', true],
      ['group', 'Objects', false],
      ['track', 'Objects', false],
    ]);
    const d = await o.page.evaluate(() => window.__tracescope.drawn());
    assert.deepEqual([d.slices.length, d.snapshots.length], [14, 14]);
    await shot(o.page, 'workbench-objects-only');
    assert.deepEqual(o.errors, []);
    await o.page.close();
  } finally {
    await k.close();
  }
});
