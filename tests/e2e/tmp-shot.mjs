// node /tmp/shot.mjs OUT.png TRACE [w h] [js-to-run]
import path from 'node:path';
import { launch, openPage } from '/work/wt/timeline/tests/e2e/lib/browser.mjs';
import { startServer } from '/work/wt/timeline/tests/e2e/lib/server.mjs';
const [out, trace, w = '1400', h = '860', js = ''] = process.argv.slice(2);
const srv = await startServer('/work/wt/timeline/target/debug/tracescope', trace);
const browser = await launch();
try {
  const { page, errors } = await openPage(browser.ctx, srv.url);
  await page.setViewportSize({ width: Number(w), height: Number(h) });
  if (js) await page.evaluate(js);
  await page.evaluate(() => window.__tracescope.idle());
  await page.waitForTimeout(300);
  await page.screenshot({ path: out });
  console.log('errors', errors);
} finally { await browser.close(); await srv.close(); }
