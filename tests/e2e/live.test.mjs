// `tracescope view --follow FILE`: events appended to the file appear on the page
// (within a second or two: the server looks every 250 ms, the page every second),
// the user's view and selection stay, and "Stick to end" slides the window.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from './lib/browser.mjs';
import { withTrace } from './lib/trace-page.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = process.env.TRACESCOPE || path.join(ROOT, 'target/debug/tracescope');

let browser;
let dir;
before(async () => {
  browser = await launch();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracescope-live-'));
});
after(async () => {
  await browser?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const x = (name, ts, dur) => `{"ph":"X","name":"${name}","ts":${ts},"dur":${dur},"pid":1,"tid":1},\n`;

/** Waits (up to 10 s) until `ok()` is true. */
async function until(what, ok) {
  for (let i = 0; i < 100; i++) {
    if (await ok()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`${what}: not within 10 s`);
}

test('appended events appear, the view and selection stay, "Stick to end" follows the end', async () => {
  const file = path.join(dir, 'live.json');
  fs.writeFileSync(file, `[\n{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"main"}},\n${x('a', 1000, 500)}`);
  await withTrace(browser, BIN, file, async (t) => {
    const { page, hook } = t;
    assert.equal(await page.locator('#live').isVisible(), true);
    assert.match(await page.locator('#live-updated').innerText(), /^updated \d\d:\d\d:\d\d$/);
    const track = await t.thread(1, 1);
    assert.deepEqual(await t.slices(track), [['a', 1000000, 500000, 0]]);
    await t.click('a');
    const view = await hook(() => window.__tracescope.view());

    // One event inside the view, one after it; the second half of a line comes later.
    fs.appendFileSync(file, `${x('c', 1100, 100)}${x('b', 3000, 500)}{"ph":"X","name":"d",`);
    await until('c drawn', async () => {
      await t.idle();
      return (await t.slices(track)).length === 2;
    });
    assert.deepEqual(await t.slices(track), [['a', 1000000, 500000, 0], ['c', 1100000, 100000, 1]]);
    const kept = await hook(() => window.__tracescope.view());
    assert.deepEqual([kept.t0, kept.t1], [view.t0, view.t1], 'the view stays where the user left it');
    assert.equal((await hook(() => window.__tracescope.selection())).name, 'a');
    assert.match(await page.locator('#trace-facts').innerText(), /^4 events/);

    // Stick to the end: same width, ending just after b.
    await page.locator('#live-stick').check();
    await t.idle();
    const stuck = await hook(() => window.__tracescope.view());
    assert.ok(Math.abs((stuck.t1 - stuck.t0) - (view.t1 - view.t0)) < 1, 'same width');
    assert.ok(stuck.t0 < 3500000 && stuck.t1 > 3500000 && stuck.t1 < 3500000 + (view.t1 - view.t0) * 0.05, JSON.stringify(stuck));
    assert.deepEqual((await t.slices(track)).map((s) => s[0]), ['b']);

    // The rest of d's line: the window slides on its own.
    fs.appendFileSync(file, '"ts":6000,"dur":200,"pid":1,"tid":1},\n');
    await until('the window slides to d', async () => (await hook(() => window.__tracescope.view())).t1 > 6200000);
    await t.idle();
    assert.deepEqual(await t.slices(track), [['d', 6000000, 200000, 0]]);
  }, { extra: ['--follow'], shotName: 'live-follow' });
});
