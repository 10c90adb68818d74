// Scratch: open a trace, take screenshots of the Profile tab (not a test).
import { launch, openPage } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';
const [file, out] = process.argv.slice(2);
const srv = await startServer(process.env.TRACESCOPE, file);
const b = await launch();
try {
  const { page, errors } = await openPage(b.ctx, srv.url);
  const hook = (fn, arg) => page.evaluate(fn, arg);
  for (const view of ['top-down', 'bottom-up', 'flame', 'sandwich']) {
    await hook((v) => window.__tracescope.showProfile(v), view);
    await hook(() => window.__tracescope.analysisIdle());
    await page.waitForTimeout(300);
    await page.screenshot({ path: `${out}-${view}.png` });
  }
  console.log(JSON.stringify(errors));
} finally {
  await b.close();
  await srv.close();
}
