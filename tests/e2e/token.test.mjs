// The page under the server's token (issue 13): opened from the printed
// `?token=` URL it gets a cookie, lands on the clean URL and works (tracks, tiles,
// details, search all go through the API with the cookie); without the token the
// server answers 401, and for another Host 403. `--token` requires the token on
// loopback, so the test needs no other address.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch, openPage, shot } from './lib/browser.mjs';
import { startServer } from './lib/server.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../..');
const BIN = process.env.TRACESCOPE || path.join(ROOT, 'target/debug/tracescope');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('the page works under the token, and nothing is served without it', async () => {
  const srv = await startServer(BIN, undefined, ['--token']);
  try {
    const url = new URL(srv.url);
    assert.match(url.search, /^\?token=[0-9a-f]{32}$/);
    const clean = `${url.origin}/`;

    // No cookie, no token: 401 for the page and the API.
    for (const p of ['/', '/api/summary']) {
      const r = await fetch(`${url.origin}${p}`);
      assert.equal(r.status, 401, p);
    }

    const { page, errors } = await openPage(browser.ctx, srv.url);
    // (The page keeps its view in the hash.)
    assert.equal(page.url().split('#')[0], clean, 'the token left the address bar');
    const rows = await page.evaluate(() => window.__tracescope.tracks());
    assert.ok(rows.filter((r) => r.kind === 'track').length > 5, 'tracks listed');
    const drawn = await page.evaluate(() => window.__tracescope.drawn());
    assert.ok(drawn.slices.length > 0, 'tiles fetched and drawn');
    // The worker's tile fetches and the page's own carry the cookie.
    const status = await page.evaluate(async () => (await fetch('/api/search?q=a')).status);
    assert.equal(status, 200);
    await shot(page, 'token-page');
    assert.deepEqual(errors, [], 'no console errors');

    // A reload keeps working with the cookie alone.
    await page.reload();
    await page.evaluate(() => window.__tracescope.idle());
    assert.ok((await page.evaluate(() => window.__tracescope.drawn())).slices.length > 0);
    await page.close();
  } finally {
    await srv.close();
  }
});
