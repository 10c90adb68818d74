// Scratch: search and list (not a test).
import { launch, openPage } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';
const [file, out, q] = process.argv.slice(2);
const srv = await startServer(process.env.TRACESCOPE, file);
const b = await launch();
try {
  const { page, errors } = await openPage(b.ctx, srv.url);
  await page.fill('#search', q);
  await page.press('#search', 'Enter');
  await page.waitForTimeout(1500);
  await page.click('#search-list');
  await page.waitForTimeout(800);
  await page.screenshot({ path: `${out}-list.png` });
  await page.click('th[data-sort="duration"]');
  await page.waitForTimeout(800);
  await page.press('#search', 'Enter');
  await page.waitForTimeout(800);
  await page.screenshot({ path: `${out}-dur.png` });
  console.log(JSON.stringify(errors));
} finally {
  await b.close();
  await srv.close();
}
