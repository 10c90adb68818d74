// Benchmark of the analysis tabs on a large trace, in Debian's chromium: how long a
// range table, a highlight, "select all with this name" and the profile views take
// from the user's action to the table or tree on screen (next frame drawn), and how
// much of that is the server's request (resource timing). Best of RUNS.
//
//   node bench-analysis.mjs --trace FILE     starts target/release/tracescope view FILE
//   node bench-analysis.mjs URL              a running `tracescope view BIG --no-open`
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const RUNS = Number(process.env.RUNS || 3);

let server;
if (args[0] === '--trace') {
  server = await startServer(process.env.TRACESCOPE || path.join(HERE, '../../target/release/tracescope'), args[1]);
  console.log(`model ready after ${server.loadMs.toFixed(0)} ms`);
} else {
  server = { url: args[0], close: async () => {} };
}
const browser = await launch();
try {
  const { page, errors } = await openPage(browser.ctx, server.url);
  const summary = await page.evaluate(() => fetch('/api/summary').then((r) => r.json()));
  const { start_ns: t0, end_ns: t1 } = summary;
  const hasSamples = summary.processes.some((p) => p.threads.some((t) => t.tracks.some((k) => k.kind === 'samples')));

  /**
   * Run `action` (a function of the page's hook) RUNS times; the best wall time to
   * the next drawn frame, and the slowest API request of that run.
   */
  async function measure(label, action, arg) {
    let best = null;
    for (let r = 0; r < RUNS; r++) {
      const m = await page.evaluate(async ([src, a]) => {
        performance.clearResourceTimings();
        const began = performance.now();
        const fn = new Function('h', 'a', `return (${src})(h, a);`);
        await fn(window.__tracescope, a);
        await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
        const wall = performance.now() - began;
        const reqs = performance.getEntriesByType('resource').filter((e) => e.name.includes('/api/') && !e.name.includes('/api/track/'));
        const req = reqs.reduce((m, e) => Math.max(m, e.responseEnd - e.startTime), 0);
        const bytes = reqs.reduce((n, e) => n + (e.encodedBodySize || 0), 0);
        return { wall, req, bytes };
      }, [action.toString(), arg]);
      if (!best || m.wall < best.wall) best = m;
    }
    console.log(`| ${label} | ${best.wall.toFixed(0)} ms | ${best.req.toFixed(0)} ms | ${(best.bytes / 1024).toFixed(0)} KB |`);
    return best;
  }

  console.log('| action | to table on screen | API request | bytes |');
  console.log('|---|---|---|---|');
  const whole = [t0, t1 + 1];
  await measure('range, whole trace, by name', (h, a) => h.selectRange(a[0], a[1]), whole);
  const rows = await page.evaluate(() => window.__tracescope.rangeTable().groups.length);
  console.log(`(${rows} groups)`);
  await measure('highlight the biggest group (first 1000 slices)', (h) => h.highlightRow(0));
  const top = await page.evaluate(() => window.__tracescope.rangeTable().groups[0].key);
  await measure('range, whole trace, by thread', async (h, a) => {
    document.querySelector('#range-panel select.range-by').value = 'thread';
    await h.selectRange(a[0], a[1]);
  }, whole);
  await measure('range, whole trace, by category', async (h, a) => {
    document.querySelector('#range-panel select.range-by').value = 'category';
    await h.selectRange(a[0], a[1]);
  }, whole);
  const mid = [t0 + (t1 - t0) * 0.45, t0 + (t1 - t0) * 0.55];
  await measure('range, middle 10 %, by name', async (h, a) => {
    document.querySelector('#range-panel select.range-by').value = 'name';
    await h.selectRange(a[0], a[1]);
  }, mid);
  await measure(`select all "${top}"`, (h, a) => h.selectAll(a), top);
  if (hasSamples) {
    await measure('profile, whole trace, bottom-up', (h) => h.showProfile('bottom-up'));
    await measure('profile, whole trace, top-down', (h) => h.showProfile('top-down'));
    await measure('profile, whole trace, flame graph', (h) => h.showProfile('flame'));
  }
  if (errors.length) console.log(`console errors: ${errors.join('\n')}`);
} finally {
  await browser.close();
  await server.close();
}
