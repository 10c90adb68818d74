// The timeline's frames paint every pixel they show: a frame after a walk of
// pans, zooms and scrolls (with a pinned track, tiles still loading on the way)
// equals a redraw of the same view over a canvas painted magenta and after a frame
// elsewhere (so the page's own pixel buffer holds other pixels too). The
// raster is painted row by row and the canvas only around it (no whole-screen fill),
// so a line no row paints would keep the last frame's (or here magenta) pixels.
// At device pixel ratios 1 and 1.5 (row edges on fractional pixels). And a scroll
// only moves the tracks: the shading of track rows alternated by their place in the
// view, so scrolling past one row swapped every row's shade.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, shot } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';
import { writeManyTracks } from './lib/many-tracks.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = process.env.TRACESCOPE || path.join(ROOT, 'target/debug/tracescope');

let browser;
let srv;
let dir;
before(async () => {
  browser = await launch();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracescope-frames-'));
  const file = path.join(dir, 'threads.json');
  writeManyTracks(file, 150);
  srv = await startServer(BIN, file);
});
after(async () => {
  await browser?.close();
  await srv?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/**
 * Walk the view (some steps without waiting for tiles), end at a fixed view, then
 * compare its pixels with a redraw over a magenta canvas. Returns what differed.
 * @param {import('playwright-core').Page} page
 */
function walkAndRedraw(page) {
  return page.evaluate(async () => {
    const h = window.__tracescope;
    const scroller = document.getElementById('scroller');
    const canvas = /** @type {HTMLCanvasElement} */ (document.getElementById('canvas'));
    const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
    const v0 = h.view();
    const span = v0.t1 - v0.t0;
    const track = h.tracks().find((r) => r.kind === 'track')?.track;
    h.set({ pinned: [track] });
    const frame = () => new Promise((r) => requestAnimationFrame(() => r(undefined)));
    const steps = [[0.1, 0.6, 900], [0.3, 0.35, 233.5], [0.05, 0.95, 4000], [0.42, 0.43, 61.25], [0.2, 0.7, 1500]];
    for (const [a, b, top] of steps) {
      h.setView(v0.t0 + a * span, v0.t0 + b * span);
      scroller.scrollTop = top;
      await frame();
      await frame();
    }
    await h.idle();
    // A pure scroll, then a pure pan, each a frame of its own.
    scroller.scrollTop += 37;
    await frame();
    const v = h.view();
    h.setView(v.t0 + (v.t1 - v.t0) * 0.01, v.t1 + (v.t1 - v.t0) * 0.01);
    await frame();
    await h.idle();
    const before = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    const at = h.view();
    ctx.save();
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = '#ff00ff';
    ctx.fillRect(0, 0, canvas.width, canvas.height);
    ctx.restore();
    // One frame elsewhere (top of the tracks, the whole trace) leaves other pixels
    // in the page's raster buffer too, then back.
    const top = scroller.scrollTop;
    scroller.scrollTop = 0;
    h.setView(v0.t0, v0.t1);
    await frame();
    scroller.scrollTop = top;
    h.setView(at.t0, at.t1);
    await h.idle();
    const after = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    let differ = 0;
    let magenta = 0;
    let first = null;
    for (let i = 0; i < after.length; i += 4) {
      if (after[i] === 255 && after[i + 1] === 0 && after[i + 2] === 255) magenta++;
      if (after[i] !== before[i] || after[i + 1] !== before[i + 1] || after[i + 2] !== before[i + 2]) {
        differ++;
        if (first === null) first = { x: (i / 4) % canvas.width, y: Math.floor(i / 4 / canvas.width) };
      }
    }
    return { differ, magenta, first, scrollTop: scroller.scrollTop, size: [canvas.width, canvas.height], same: h.view().t0 === at.t0 };
  });
}

for (const dpr of [1, 1.5]) {
  test(`a frame after pans, zooms and scrolls equals a full redraw (device pixel ratio ${dpr})`, async () => {
    const page = await browser.ctx.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    if (dpr !== 1) {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setDeviceMetricsOverride', { width: 1400, height: 800, deviceScaleFactor: dpr, mobile: false });
    }
    await page.goto(srv.url);
    await page.evaluate(() => window.__tracescope.idle());
    const r = await walkAndRedraw(page);
    assert.ok(r.scrollTop > 1000, `the view scrolled: ${JSON.stringify(r)}`);
    assert.equal(r.size[0], Math.round(1400 * dpr), 'the canvas has device pixels');
    assert.equal(r.same, true);
    assert.equal(r.magenta, 0, `every pixel repainted: ${JSON.stringify(r)}`);
    assert.equal(r.differ, 0, `the frame equals the full redraw: ${JSON.stringify(r)}`);
    if (dpr === 1) await shot(page, 'frames-walked');
    assert.deepEqual(errors, []);
    await page.close();
  });
}

test('a scroll moves the tracks by the scrolled pixels and changes nothing else (row shading included)', async () => {
  const page = await browser.ctx.newPage();
  await page.goto(srv.url);
  await page.evaluate(() => window.__tracescope.idle());
  const r = await page.evaluate(async () => {
    const h = window.__tracescope;
    const scroller = document.getElementById('scroller');
    const canvas = /** @type {HTMLCanvasElement} */ (document.getElementById('canvas'));
    const ctx = /** @type {CanvasRenderingContext2D} */ (canvas.getContext('2d'));
    const read = () => ctx.getImageData(0, 0, canvas.width, canvas.height).data;
    scroller.scrollTop = 500;
    await h.idle();
    const before = read();
    // Less than a track's height; then just past the top row (the first row in view
    // is the next one); then several rows.
    const pastTop = () => {
      const top = h.tracks().find((t) => !t.pinned && t.canvasY <= h.rulerH && t.canvasY + t.h > h.rulerH);
      return top ? top.canvasY + top.h - h.rulerH + 1 : 1;
    };
    const out = [];
    for (const step of [() => 7, pastTop, () => 130]) {
      const d = step();
      const from = scroller.scrollTop;
      scroller.scrollTop = from + d;
      await h.idle();
      const moved = scroller.scrollTop - from;
      const after = read();
      const w = canvas.width;
      let differ = 0;
      let first = null;
      // Canvas line y now shows what line y + moved showed (below the ruler).
      for (let y = h.rulerH; y < canvas.height - moved; y++) {
        for (let x = 0; x < w; x++) {
          const a = (y * w + x) * 4;
          const b = ((y + moved) * w + x) * 4;
          if (after[a] !== before[b] || after[a + 1] !== before[b + 1] || after[a + 2] !== before[b + 2]) {
            differ++;
            first ??= { x, y };
          }
        }
      }
      out.push({ moved, differ, first });
      before.set(after);
    }
    return out;
  });
  for (const x of r) {
    assert.ok(x.moved > 0, JSON.stringify(r));
    assert.equal(x.differ, 0, `pixels that did not just move: ${JSON.stringify(r)}`);
  }
  await page.close();
});
