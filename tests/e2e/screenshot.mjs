// Writes the README's screenshot: `tracescope view TRACE` in chromium, zoomed on
// a busy region with a slice selected so the details panel shows its args.
//   node screenshot.mjs TRACE.json OUT.png
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const [trace, out] = process.argv.slice(2);
const bin = process.env.TRACESCOPE || path.join(HERE, '../../target/debug/tracescope');
const srv = await startServer(bin, trace);
const browser = await launch();
try {
  const { page, errors } = await openPage(browser.ctx, srv.url);
  await page.setViewportSize({ width: 1400, height: 860 });
  // Zoom to a tenth of the trace, where names fit, and select a slice in it.
  await page.evaluate(() => {
    const v = window.__tracescope.view();
    const span = v.t1 - v.t0;
    window.__tracescope.setView(v.t0 + span * 0.30, v.t0 + span * 0.34);
  });
  await page.evaluate(() => window.__tracescope.idle());
  const target = await page.evaluate(() => {
    const d = window.__tracescope.drawn();
    const s = d.slices.filter((x) => x.id >= 0 && x.depth === 1 && x.track.startsWith('s:')).sort((a, b) => b.dur - a.dur)[0];
    return s ? window.__tracescope.locate(s.name, s.track) : null;
  });
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
