// Writes the README's screenshot: `tracescope view TRACE` in chromium, zoomed on
// a busy region with a slice selected (its thread pinned on top) so the details
// panel shows its args.
//   node screenshot.mjs OUT.png [TRACE.json...]  (no TRACE: the built-in demo trace;
//                                                 several: one timeline)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const [out, ...traces] = process.argv.slice(2);
const bin = process.env.TRACESCOPE || path.join(HERE, '../../target/debug/tracescope');
const srv = await startServer(bin, traces.length ? traces : undefined);
const browser = await launch();
try {
  const { page, errors } = await openPage(browser.ctx, srv.url);
  await page.setViewportSize({ width: 1400, height: 860 });
  // Optionally zoom to a part of the trace (ZOOM=0.1,0.5: fractions of the view),
  // then select the longest depth-1 slice of a thread, so the details show args.
  const zoom = (process.env.ZOOM || '0,1').split(',').map(Number);
  await page.evaluate(([a, b]) => {
    const v = window.__tracescope.view();
    const span = v.t1 - v.t0;
    window.__tracescope.setView(v.t0 + span * a, v.t0 + span * b);
  }, zoom);
  await page.evaluate(() => window.__tracescope.idle());
  // Pin that slice's thread, so it stays in view above the details panel.
  const pick = await page.evaluate(() => {
    const d = window.__tracescope.drawn();
    const s = d.slices.filter((x) => x.id >= 0 && x.depth === 1 && /^s:\d+:0$/.test(x.track)).sort((a, b) => b.dur - a.dur)[0];
    if (s) window.__tracescope.set({ pinned: [s.track] });
    return s ? { name: s.name, track: s.track } : null;
  });
  await page.evaluate(() => window.__tracescope.idle());
  const target = pick && (await page.evaluate(([n, t]) => window.__tracescope.locate(n, t), [pick.name, pick.track]));
  if (target) {
    await page.mouse.click(target.x, target.y);
    await page.locator('#details .args').waitFor();
    await page.mouse.move(10, 10);
  }
  await page.evaluate(() => window.__tracescope.idle());
  await page.screenshot({ path: out });
  if (errors.length) throw new Error(`console errors: ${errors.join('\n')}`);
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await srv.close();
}
