import { launch, openPage } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';
const [file, out] = process.argv.slice(2);
const srv = await startServer(process.env.TRACESCOPE, file);
const b = await launch();
try {
  const { page, errors } = await openPage(b.ctx, srv.url);
  const p = await page.evaluate(() => window.__tracescope.locate('CommitLoad'));
  await page.mouse.click(p.x, p.y);
  await page.evaluate(() => window.__tracescope.idle());
  await page.waitForTimeout(500);
  await page.screenshot({ path: `${out}-details.png` });
  console.log(JSON.stringify(errors));
} finally {
  await b.close();
  await srv.close();
}
