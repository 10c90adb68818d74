// Several traces on one timeline: `tracescope view DIR` on tests/fixtures/multi (two
// ranks whose pids collide) shows each file's processes apart, named after the file,
// with each file's slices at their own times.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from './lib/browser.mjs';
import { FIXTURES } from './lib/tiers.mjs';
import { withTrace } from './lib/trace-page.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = process.env.TRACESCOPE || path.join(ROOT, 'target/debug/tracescope');

let browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test('a directory of two ranks: processes apart, named after their files', () =>
  withTrace(browser, BIN, path.join(FIXTURES, 'multi'), async (x) => {
    const procs = (await x.tracks()).filter((r) => r.kind === 'process').map((r) => [r.pid, r.label]);
    // The page orders processes by its own rules (the busiest first).
    const label = (pid) => procs.find((p) => p[0] === pid)?.[1] ?? '';
    assert.deepEqual(procs.map((p) => p[0]).sort(), [1, 2, 3], JSON.stringify(procs));
    assert.ok(label(1).includes('trainer (rank0.json)'), JSON.stringify(procs));
    assert.ok(label(2).includes('rank0.json'), JSON.stringify(procs));
    assert.ok(label(3).includes('trainer (rank1.json)'), JSON.stringify(procs));
    assert.deepEqual(await x.slices(await x.thread(1, 1)), [['step', 1000000, 100000, 0]]);
    assert.deepEqual(await x.slices(await x.thread(3, 1)), [['step', 5000500, 200000, 0]]);
  }, { shotName: 'multi-two-ranks' }));
