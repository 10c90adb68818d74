// The Query tab on the real `tracescope view` (built-in demo trace): SQL typed in
// the editor runs with Ctrl+Enter, the grid shows the rows with their count and
// time, a row with a slice id selects that slice, one with a ts zooms to it, and
// errors show inline with their line and column.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, shot } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = process.env.TRACESCOPE || path.join(ROOT, 'target/debug/tracescope');
let srv;
let browser;
let page;
let errors;

before(async () => {
  srv = await startServer(BIN);
  browser = await launch();
  ({ page, errors } = await openPage(browser.ctx, srv.url));
});
after(async () => {
  await browser?.close();
  await srv?.close();
});

/** Types `sql` into the editor and runs it with Ctrl+Enter; resolves with the status line. */
async function run(sql) {
  const editor = page.locator('#query-panel .query-editor');
  await editor.fill(sql);
  await editor.press('Control+Enter');
  await page.waitForFunction(() => {
    const s = document.querySelector('#query-panel .query-status')?.textContent ?? '';
    const e = document.querySelector('#query-panel .query-error');
    return / in [\d.]+ ms$/.test(s) || (e && !e.hidden);
  });
  return page.locator('#query-panel .query-status').innerText();
}

const grid = () =>
  page.$$eval('#query-panel table.query-table tbody tr[data-i]', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));

test('the SQL button opens the Query tab with an example; Ctrl+Enter runs it', async () => {
  await page.click('#query-button');
  assert.equal(await page.locator('#query-panel').isVisible(), true);
  assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('query-editor')), true);
  const status = await run(await page.locator('#query-panel .query-editor').inputValue());
  assert.match(status, /^\d+ rows? in [\d.]+ ms$/);
  const head = await page.$$eval('#query-panel table.query-table th', (ths) => ths.map((t) => t.textContent.trim()));
  assert.deepEqual(head, ['name', 'count', 'total']);
  assert.ok((await grid()).length > 0);
});

test('a row with a slice id selects the slice on the timeline', async () => {
  const status = await run('SELECT id, name, ts_ns, dur_ns FROM slices ORDER BY dur_ns DESC, id LIMIT 3');
  assert.equal(status.split(' in ')[0], '3 rows');
  const rows = await grid();
  const [id, name] = [Number(rows[0][0]), rows[0][1]];
  await page.click('#query-panel table.query-table tbody tr[data-i="0"]');
  await page.waitForFunction((want) => window.__tracescope.selection()?.id === want, id);
  const sel = await page.evaluate(() => window.__tracescope.selection());
  assert.deepEqual([sel.kind, sel.id, sel.name], ['slice', id, name]);
  await shot(page, 'query-tab');
});

test('a row with a ts zooms the timeline to it', async () => {
  await run('SELECT name, ts, dur FROM slice WHERE dur > 0 ORDER BY dur LIMIT 1');
  const [[, ts, dur]] = await grid();
  await page.click('#query-panel table.query-table tbody tr[data-i="0"]');
  await page.waitForFunction(([t, d]) => {
    const v = window.__tracescope.view();
    return v.t0 <= t && t + d <= v.t1 && v.t1 - v.t0 < 2 * d + 3000;
  }, [Number(ts), Number(dur)]);
});

test('an error shows inline with its line and column', async () => {
  await run('SELECT name\nFROM slice WHERE nope = 1');
  const err = await page.locator('#query-panel .query-error').innerText();
  assert.match(err, /^no such column: nope \(line 2, column 18\)\nFROM slice WHERE nope = 1\n {17}\^$/);
  // The failed request itself is the only console error.
  assert.deepEqual(errors.filter((e) => !/status of 400/.test(e)), []);
});
