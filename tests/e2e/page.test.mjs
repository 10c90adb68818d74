// The page's behaviour on the demo fixture, served by the mock server (docs/api.md):
// drawing, selection and details, search, keys, flows, diagnostics, sizes, themes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MockModel, demoSpec } from './lib/mock-model.mjs';
import { startMockServer } from './lib/mock-server.mjs';
import { launch, openPage, shot } from './lib/browser.mjs';

const WEB = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web');
let srv;
let browser;
let page;
let errors;

const hook = (fn, arg) => page.evaluate(fn, arg);
const idle = () => hook(() => window.__tracescope.idle());
const drawn = () => hook(() => window.__tracescope.drawn());
const view = () => hook(() => window.__tracescope.view());

before(async () => {
  srv = await startMockServer(WEB, new MockModel(demoSpec()));
  browser = await launch();
  ({ page, errors } = await openPage(browser.ctx, srv.url));
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

async function clickSlice(name) {
  const p = await hook((n) => window.__tracescope.locate(n), name);
  assert.ok(p, `${name} is drawn`);
  await page.mouse.click(p.x, p.y);
  await idle();
}

test('tracks: process groups with labels, threads, process tracks', async () => {
  const rows = await hook(() => window.__tracescope.tracks());
  assert.deepEqual(rows.map((r) => [r.kind, r.label]), [
    ['process', 'Renderer (pid 1) · example.com · https://example.com/'],
    ['track', 'CrRendererMain (tid 7)'],
    ['toggle', '1 empty thread'],
    ['track', 'JSHeapUsed'],
    ['track', 'LoadResource'],
    ['process', 'Browser (pid 2)'],
    ['track', 'CrBrowserMain (tid 1)'],
  ]);
  await shot(page, 'demo');
});

test('slices with depths, flags, instants and the counter are drawn', async () => {
  const d = await drawn();
  const find = (name) => d.slices.filter((s) => s.name === name).map((s) => [s.track, s.ts, s.dur, s.depth]);
  assert.deepEqual(find('ParseHTML'), [['s:0:0', 1_200_000, 3_000_000, 1]]);
  assert.deepEqual(find('EvaluateScript'), [['s:0:0', 1_500_000, 2_000_000, 2]]);
  assert.deepEqual(find('RunTask'), [['s:0:0', 1_000_000, 8_000_000, 0], ['s:0:0', 10_000_000, 3_000_000, 0]]);
  assert.deepEqual(find('LoadResource'), [['a:0', 2_000_000, 12_000_000, 0], ['a:0', 5_000_000, 9_000_000, 1]]);
  assert.equal(d.slices.find((s) => s.name === 'Unfinished').flags & 1, 1);
  assert.equal(d.slices.find((s) => s.name === 'Overlapping').flags & 2, 2);
  assert.deepEqual(d.instants.map((i) => [i.name, i.ts, i.scope]), [['marker-start', 500_000, 't'], ['FirstPaint', 9_500_000, 'p']]);
  assert.deepEqual(d.globals, [{ name: 'NavigationStart', ts: 13_500_000 }]);
  assert.ok(d.counters.length > 10);
});

test('click selects a slice; details show args as a tree, times, links', async () => {
  await clickSlice('RunTask');
  const sel = await hook(() => window.__tracescope.selection());
  assert.equal(sel.name, 'RunTask');
  assert.equal(sel.kind, 'slice');
  const panel = page.locator('#details');
  await panel.locator('text=src_file').waitFor();
  const text = await panel.innerText();
  assert.match(text, /RunTask/);
  assert.match(text, /Duration\s+8 ms/);
  assert.match(text, /Start\s+1 ms/);
  assert.match(text, /"task\.cc"/);
  assert.match(text, /frame/);
  // Nested arrays fold: the `sizes` array shows its length and its items.
  assert.match(text, /sizes \[3\]/);
  await shot(page, 'demo-selected');
  // A link to a child selects it.
  await panel.locator('a', { hasText: 'ParseHTML' }).click();
  await idle();
  await page.locator('#details h2', { hasText: 'ParseHTML' }).waitFor();
  assert.equal((await hook(() => window.__tracescope.selection())).name, 'ParseHTML');
});

test('arrow keys walk parent, child and siblings', async () => {
  await clickSlice('ParseHTML');
  const name = async () => {
    await idle();
    await page.waitForTimeout(50);
    return (await hook(() => window.__tracescope.selection())).name;
  };
  await page.keyboard.press('ArrowRight');
  assert.equal(await name(), 'Layout');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await name(), 'ParseHTML');
  await page.keyboard.press('ArrowDown');
  assert.equal(await name(), 'EvaluateScript');
  await page.keyboard.press('ArrowUp');
  assert.equal(await name(), 'ParseHTML');
  await page.keyboard.press('ArrowUp');
  assert.equal(await name(), 'RunTask');
  await page.keyboard.press('ArrowRight');
  assert.equal(await name(), 'RunTask');
  assert.equal((await hook(() => window.__tracescope.selection())).ts, 10_000_000);
});

test('flows: arrows for the selected slice, and all flows in view', async () => {
  await clickSlice('PostMessage');
  await page.waitForFunction(() => window.__tracescope.arrows().selected.length === 1);
  const a = await hook(() => window.__tracescope.arrows().selected[0]);
  assert.deepEqual(a, { fromTs: 7_200_000, fromTrack: 's:0:0', fromRow: 1, toTs: 8_100_000, toTrack: 's:1:0', toRow: 0 });
  assert.match(await page.locator('#details').innerText(), /Flows out\s+→ OnMessage/i);
  await page.keyboard.press('Escape');
  await page.check('#show-flows');
  await page.waitForFunction(() => window.__tracescope.arrows().all.length === 1);
  await shot(page, 'demo-flows');
  await page.uncheck('#show-flows');
  await page.waitForFunction(() => window.__tracescope.arrows().all.length === 0);
});

test('search highlights, counts, and steps through matches', async () => {
  await page.keyboard.press('Escape');
  await page.keyboard.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'search');
  await page.keyboard.type('runtask');
  await page.keyboard.press('Enter');
  await page.locator('#search-status', { hasText: '1 / 2' }).waitFor();
  await idle();
  let sel = await hook(() => window.__tracescope.selection());
  assert.deepEqual([sel.name, sel.ts], ['RunTask', 1_000_000]);
  await page.keyboard.press('Enter');
  await page.locator('#search-status', { hasText: '2 / 2' }).waitFor();
  await idle();
  sel = await hook(() => window.__tracescope.selection());
  assert.deepEqual([sel.name, sel.ts], ['RunTask', 10_000_000]);
  await page.keyboard.press('Shift+Enter');
  await page.locator('#search-status', { hasText: '1 / 2' }).waitFor();
  await shot(page, 'demo-search');
  await page.fill('#search', 'nothing-like-this');
  await page.keyboard.press('Enter');
  await page.locator('#search-status', { hasText: 'no match' }).waitFor();
  await page.fill('#search', '');
  await page.locator('#scroller').focus();
  // Ctrl+F also opens search.
  await page.keyboard.press('Control+f');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'search');
  await page.keyboard.press('Escape');
});

test('keys: W/S zoom at the mouse, A/D pan, F fits the selection, M marks it', async () => {
  await page.locator('#scroller').focus();
  const box = await page.locator('#canvas').boundingBox();
  await page.mouse.move(box.x + box.width * 0.6, box.y + 200);
  const v0 = await view();
  await page.keyboard.down('w');
  await page.waitForTimeout(400);
  await page.keyboard.up('w');
  const v1 = await view();
  assert.ok(v1.t1 - v1.t0 < (v0.t1 - v0.t0) * 0.8, 'W zooms in');
  await page.keyboard.down('s');
  await page.waitForTimeout(300);
  await page.keyboard.up('s');
  const v2 = await view();
  assert.ok(v2.t1 - v2.t0 > v1.t1 - v1.t0, 'S zooms out');
  await page.keyboard.down('d');
  await page.waitForTimeout(300);
  await page.keyboard.up('d');
  const v3 = await view();
  assert.ok(v3.t0 > v2.t0, 'D pans right');
  assert.ok(Math.abs((v3.t1 - v3.t0) - (v2.t1 - v2.t0)) < 1, 'panning keeps the zoom');
  await page.keyboard.down('a');
  await page.waitForTimeout(300);
  await page.keyboard.up('a');
  assert.ok((await view()).t0 < v3.t0, 'A pans left');

  await clickSlice('Layout');
  await page.keyboard.press('f');
  await idle();
  const v4 = await view();
  assert.ok(v4.t0 <= 4_500_000 && v4.t1 >= 6_500_000 && v4.t1 - v4.t0 < 3_000_000, 'F fits the selection');
  await page.keyboard.press('m');
  assert.deepEqual(await hook(() => window.__tracescope.mark()), { t0: 4_500_000, t1: 6_500_000 });
  await idle();
  await shot(page, 'demo-zoomed-marked');
  await page.keyboard.press('m');
  assert.equal(await hook(() => window.__tracescope.mark()), null);
  await page.keyboard.press('Escape');
  await page.keyboard.press('f');
  await idle();
  const v5 = await view();
  assert.ok(v5.t0 <= 0 && v5.t1 >= 20_000_000, 'F with nothing selected shows the whole trace');
});

test('wheel zooms at the mouse and drag pans', async () => {
  const box = await page.locator('#canvas').boundingBox();
  const x = box.x + box.width * 0.7;
  await page.mouse.move(x, box.y + 150);
  const before = await view();
  const tAt = (v) => v.t0 + ((x - box.x - (box.width - (v.t1 - v.t0) / v.nsPerPx)) * v.nsPerPx);
  await page.mouse.wheel(0, -300);
  await idle();
  const after = await view();
  assert.ok(after.t1 - after.t0 < before.t1 - before.t0, 'wheel up zooms in');
  assert.ok(Math.abs(tAt(after) - tAt(before)) < before.nsPerPx * 2, 'the time under the mouse stays');
  await page.mouse.move(x, box.y + 400);
  await page.mouse.down();
  await page.mouse.move(x - 200, box.y + 400, { steps: 5 });
  await page.mouse.up();
  const dragged = await view();
  assert.ok(Math.abs(dragged.t0 - after.t0 - 200 * after.nsPerPx) < after.nsPerPx * 2, 'drag pans by the dragged pixels');
});

test('hovering shows slice durations, counter values and global instants', async () => {
  await page.keyboard.press('Escape');
  await page.keyboard.press('f');
  await idle();
  const box = await page.locator('#canvas').boundingBox();
  const rows = await hook(() => window.__tracescope.tracks());
  const rulerH = await hook(() => window.__tracescope.rulerH);
  const v = await view();
  const xOf = (t) => box.x + box.width - (v.t1 - t) / v.nsPerPx;
  const counter = rows.find((r) => r.label === 'JSHeapUsed');
  // At 5.2 ms the last sample is at 5 ms: value round(50 + 40 sin(10/4)) = 74.
  await page.mouse.move(xOf(5_200_000), box.y + rulerH + counter.y + counter.h / 2);
  const tip = page.locator('#tooltip');
  await tip.waitFor();
  assert.equal(await tip.innerText(), 'JSHeapUsed 74');
  const p = await hook(() => window.__tracescope.locate('Layout'));
  await page.mouse.move(p.x, p.y);
  assert.equal(await tip.innerText(), 'Layout 2 ms');
  const empty = rows.find((r) => r.label === 'CrBrowserMain (tid 1)');
  await page.mouse.move(xOf(13_500_000), box.y + rulerH + empty.y + empty.h - 3);
  assert.equal(await tip.innerText(), 'NavigationStart global instant');
  await page.mouse.move(box.x + box.width - 5, box.y + box.height - 5);
  await tip.waitFor({ state: 'hidden' });
});

test('process groups fold and unfold', async () => {
  const box = await page.locator('#canvas').boundingBox();
  const rows = await hook(() => window.__tracescope.tracks());
  const header = rows.find((r) => r.kind === 'process' && r.pid === 1);
  const rulerH = await hook(() => window.__tracescope.rulerH);
  await page.mouse.click(box.x + 30, box.y + rulerH + header.y + header.h / 2);
  await idle();
  let now = await hook(() => window.__tracescope.tracks());
  assert.deepEqual(now.map((r) => r.label), ['Renderer (pid 1) · example.com · https://example.com/', 'Browser (pid 2)', 'CrBrowserMain (tid 1)']);
  await page.mouse.click(box.x + 30, box.y + rulerH + header.y + header.h / 2);
  await idle();
  now = await hook(() => window.__tracescope.tracks());
  assert.equal(now.length, 7);
});

test('diagnostics badge lists what the reader repaired', async () => {
  const badge = page.locator('#diag-badge');
  assert.equal(await badge.innerText(), '⚠ 3 warnings');
  await badge.click();
  const popup = page.locator('#diag-popup');
  await popup.waitFor();
  const text = await popup.innerText();
  assert.match(text, /overlap/);
  assert.match(text, /misplaced_end/);
  assert.match(text, /1024/);
  await shot(page, 'demo-diagnostics');
  await page.keyboard.press('Escape');
  assert.equal(await popup.isHidden(), true);
});

test('? shows every shortcut', async () => {
  await page.keyboard.press('?');
  const help = page.locator('#help');
  await help.waitFor();
  const text = await help.innerText();
  for (const k of ['W / S', 'A / D', 'F', 'M', '/ or Ctrl+F', '?']) assert.ok(text.includes(k), k);
  await shot(page, 'demo-help');
  await page.keyboard.press('?');
  assert.equal(await help.isHidden(), true);
});

test('works at small and large window sizes, and in dark mode', async () => {
  for (const [w, h] of [[420, 360], [1920, 1080]]) {
    await page.setViewportSize({ width: w, height: h });
    await idle();
    const c = await page.locator('#canvas').boundingBox();
    assert.ok(Math.abs(c.width - w) <= 20, `canvas fills the width at ${w}px`);
    const d = await drawn();
    assert.ok(d.slices.some((s) => s.name === 'RunTask'), `slices drawn at ${w}x${h}`);
    await shot(page, `demo-${w}x${h}`);
  }
  await page.setViewportSize({ width: 1400, height: 800 });
  await page.emulateMedia({ colorScheme: 'dark' });
  await idle();
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(22, 24, 29)');
  const px = await page.evaluate(() => {
    const c = document.querySelector('#canvas');
    const ctx = c.getContext('2d');
    return Array.from(ctx.getImageData(c.width - 5, c.height - 5, 1, 1).data);
  });
  assert.ok(px[0] < 60 && px[1] < 60 && px[2] < 60, `the canvas is dark too (${px})`);
  await shot(page, 'demo-dark');
  await page.emulateMedia({ colorScheme: 'light' });
});

test('no console errors', () => {
  assert.deepEqual(errors, []);
});
