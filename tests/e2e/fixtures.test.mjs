// Fixture tier: the repository's fixtures (tests/fixtures) opened by the real
// `tracescope view`, checked from what the page draws (window.__tracescope) against
// what docs/reading-rules.md says of each: slices with depths, ui-nest lanes,
// instants, names and order, profiles, objects, details, keys, search, and the
// diagnostics badge by severity. examples.test.mjs does the same on the format
// guides' examples when ../shared is there.
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

/** Open one fixture; run `check`; a screenshot named after it. */
const withFixture = (rel, check) =>
  withTrace(browser, BIN, path.join(FIXTURES, rel), check, { shotName: `fixture-${rel.replace(/[/.]/g, '-')}` });

const NO_DIAG = 'No diagnostics';

test('phases/begin-end-nested', () => withFixture('phases/begin-end-nested.json', async (x) => {
  assert.deepEqual(await x.slices(await x.thread(7, 70)), [['compile', 2000, 5000, 0], ['parse', 2250, 4250, 1]]);
  assert.equal(await x.badge(), NO_DIAG);
}));

test('phases/interleaved-threads', () => withFixture('phases/interleaved-threads.json', async (x) => {
  assert.deepEqual(await x.slices(await x.thread(2, 21)), [['net', 5000, 200, 0]]);
  assert.deepEqual(await x.slices(await x.thread(2, 22)), [['ui', 3000, 6000, 0]]);
  assert.equal(await x.badge(), NO_DIAG);
}));

test('phases/ui-nest: the out-of-band lane beside the call stack', () => withFixture('phases/ui-nest.json', async (x) => {
  const stack = await x.thread(1, 1, 0);
  const lane = await x.thread(1, 1, 1);
  assert.match(stack, /^s:\d+:0$/);
  assert.match(lane, /^s:\d+:1$/);
  assert.deepEqual(await x.slices(stack), [['Layout', 14000, 4000, 0]]);
  assert.deepEqual(await x.slices(lane), [['Upload', 10000, 6000, 0], ['Compress', 12000, 3000, 1]]);
  assert.equal(await x.badge(), NO_DIAG);
}));

test('file/object-with-metadata: a named thread, an instant, details in µs', () => withFixture('file/object-with-metadata.json', async (x) => {
  const t = await x.thread(300, 301);
  assert.ok((await x.tracks()).some((r) => r.track === t && r.label.includes('Worker')), 'thread is named Worker');
  assert.deepEqual(await x.slices(t), [['Decode', 1000500, 250250, 0]]);
  assert.deepEqual((await x.drawn()).instants.map((i) => [i.track, i.name, i.ts]), [[t, 'Oom', 1100000]]);
  await x.click('Decode');
  await x.page.locator('#details h2', { hasText: 'Decode' }).waitFor();
  assert.match(await x.page.locator('#details').innerText(), /Duration\s+250\.25 µs/);
}));

test('phases/complete-one', () => withFixture('phases/complete-one.json', async (x) => {
  assert.deepEqual(await x.slices(await x.thread(3, 4)), [['render', 30000, 12500, 0]]);
}));

test('phases/pid-tid-grouping: processes, threads, a parent linked to its child', () => withFixture('phases/pid-tid-grouping.json', async (x) => {
  const procs = (await x.tracks()).filter((r) => r.kind === 'process').map((r) => r.pid);
  assert.deepEqual(procs, [20, 30]);
  assert.deepEqual(await x.slices(await x.thread(20, 1)), [['load-a', 4000, 6000, 0]]);
  assert.deepEqual(await x.slices(await x.thread(20, 2)), [['load-b', 2000, 9000, 0], ['decode-b', 3000, 4000, 1]]);
  assert.deepEqual(await x.slices(await x.thread(30, 1)), [['load-c', 1000, 3000, 0]]);
  assert.deepEqual(await x.slices(await x.thread(30, 2)), [['load-d', 8000, 2000, 0]]);
  assert.equal((await x.drawn()).slices.length, 5);
  await x.click('load-b');
  await x.page.locator('#details a', { hasText: 'decode-b' }).click();
  await x.page.locator('#details h2', { hasText: 'decode-b' }).waitFor();
  assert.match(await x.page.locator('#details').innerText(), /Parents\s+load-b/i);
}));

test('phases/nesting-out-of-file-order: depths, keyboard walk, search, zoom', () => withFixture('phases/nesting-out-of-file-order.json', async (x) => {
  assert.deepEqual(await x.slices(await x.thread(1, 1)), [
    ['frame', 0, 100000, 0],
    ['update', 10000, 60000, 1],
    ['step-1', 10000, 10000, 2],
    ['step-2', 30000, 10000, 2],
    ['step-3', 50000, 10000, 2],
    ['paint', 80000, 15000, 1],
  ]);
  // From step-2: right is step-3, up is update, right is paint, up is frame.
  await x.click('step-2');
  await x.page.locator('#details h2', { hasText: 'step-2' }).waitFor();
  for (const [key, want] of [['ArrowRight', 'step-3'], ['ArrowUp', 'update'], ['ArrowRight', 'paint'], ['ArrowUp', 'frame']]) {
    await x.page.keyboard.press(key);
    assert.equal(await x.selected(), want, key);
  }
  // Search steps through the three steps in time order.
  await x.page.keyboard.press('/');
  await x.page.keyboard.type('step-');
  await x.page.keyboard.press('Enter');
  await x.page.locator('#search-status', { hasText: '1 / 3' }).waitFor();
  assert.equal(await x.selected(), 'step-1');
  await x.page.keyboard.press('Enter');
  await x.page.locator('#search-status', { hasText: '2 / 3' }).waitFor();
  assert.equal(await x.selected(), 'step-2');
  // W narrows the view around the mouse.
  await x.page.keyboard.press('Escape');
  await x.page.locator('#scroller').focus();
  const v0 = await x.hook(() => window.__tracescope.view());
  await x.page.keyboard.down('w');
  await x.page.waitForTimeout(300);
  await x.page.keyboard.up('w');
  const v1 = await x.hook(() => window.__tracescope.view());
  assert.ok(v1.t1 - v1.t0 < (v0.t1 - v0.t0) * 0.8);
}));

test('phases/instants: thread, process and global scopes', () => withFixture('phases/instants.json', async (x) => {
  const t = await x.thread(5, 6);
  assert.deepEqual(await x.slices(t), [['draw', 2000, 5000, 0]]);
  const d = await x.drawn();
  assert.deepEqual(d.instants.filter((i) => i.scope === 't').map((i) => [i.track, i.name, i.ts]),
    [[t, 'begin-frame', 1000], [t, 'first-paint', 8000], [t, 'end-frame', 9000]]);
  assert.deepEqual(d.instants.filter((i) => i.scope === 'p').map((i) => [i.name, i.ts]), [['gc', 4000]]);
  assert.deepEqual(d.globals.map((g) => [g.name, g.ts]), [['navigate', 6000]]);
}));

/** The samples track of a thread with its drawn items. */
async function samples(x, pid, tid) {
  const row = (await x.tracks()).find((r) => r.trackKind === 'samples' && r.pid === pid && r.tid === tid);
  assert.ok(row, `a samples track on ${pid}/${tid}`);
  return (await x.drawn()).slices.filter((s) => s.track === row.track);
}

test('phases/profile-start-stop: the sample on the profiled thread', () => withFixture('phases/profile-start-stop.json', async (x) => {
  const s = await samples(x, 9, 9);
  assert.equal(Math.min(...s.map((i) => i.ts)), 25000, 'the one sample is at 5 µs + 20 µs');
  assert.ok(s.some((i) => i.name === 'tick'));
}));

test('phases/profile-chunks: samples across chunks', () => withFixture('phases/profile-chunks.json', async (x) => {
  const s = await samples(x, 1, 1);
  assert.equal(Math.min(...s.map((i) => i.ts)), 2000);
  assert.deepEqual([...new Set(s.map((i) => i.name))].filter((n) => n !== '(root)').sort(), ['compute', 'start']);
  assert.ok(Math.max(...s.map((i) => i.ts)) <= 282000);
}));

test('phases/profile-chunks-streamed: nodes first, samples in file order', () => withFixture('phases/profile-chunks-streamed.json', async (x) => {
  const s = await samples(x, 1, 1);
  assert.equal(Math.min(...s.map((i) => i.ts)), 10000);
  assert.ok(Math.max(...s.map((i) => i.ts)) <= 190000);
}));

test('phases/tracing-started-in-browser: the frame process first, with its URL', () => withFixture('phases/tracing-started-in-browser.json', async (x) => {
  const procs = (await x.tracks()).filter((r) => r.kind === 'process');
  assert.deepEqual(procs.map((r) => r.pid), [50, 40]);
  assert.ok(procs[0].label.includes('https://example.test/app'), procs[0].label);
  const d = await x.drawn();
  assert.deepEqual(d.slices.map((s) => s.name).sort(), ['(idle)', 'RunTask', 'RunTask']);
  assert.deepEqual(d.instants.map((i) => [i.name, i.scope]), [['TracingStartedInBrowser', 't']]);
}));

test('phases/objects: lifetimes until D or the end of the trace', () => withFixture('phases/objects.json', async (x) => {
  const row = (await x.tracks()).find((r) => r.trackKind === 'objects' && r.pid === 4);
  assert.ok(row, 'an objects track on process 4');
  const items = (await x.drawn()).slices.filter((s) => s.track === row.track);
  assert.deepEqual(items.map((s) => [s.ts, s.dur]).sort((a, b) => a[0] - b[0]), [[100000, 200000], [200000, 100000]]);
  assert.ok(items.some((s) => /Texture/.test(s.name)) && items.some((s) => /Buffer/.test(s.name)));
}));

test('phases/metadata: names and sort indexes order processes and threads', () => withFixture('phases/metadata.json', async (x) => {
  const rows = await x.tracks();
  const procs = rows.filter((r) => r.kind === 'process');
  assert.deepEqual(procs.map((r) => r.pid), [12, 11], 'gpu has sort index -1');
  assert.ok(procs[0].label.includes('gpu') && procs[1].label.includes('browser'), JSON.stringify(procs.map((r) => r.label)));
  const named = (pid, name) => rows.filter((r) => r.pid === pid && r.tid !== null && r.label.includes(name)).length;
  assert.equal(named(11, 'CrBrowserMain'), 1);
  assert.equal(named(11, 'ThreadPoolForegroundWorker'), 2);
  assert.equal(named(12, 'ThreadPoolForegroundWorker'), 1);
}));

// The badge says the worst severity loudly and the rest after it; infos are quiet.
for (const [rel, text, severity] of [
  ['diagnostics/syntax_error.json', '✖ 2 errors', 'error'],
  ['diagnostics/overlap.json', '⚠ 1 warning', 'warning'],
  ['diagnostics/unbound_flow.json', 'ℹ 2 info', 'info'],
]) {
  test(`${rel}: the badge says ${text}`, () => withFixture(rel, async (x) => {
    assert.equal(await x.badge(), text);
    const badge = x.page.locator('#diag-badge');
    assert.equal(await badge.getAttribute('data-severity'), severity);
    await badge.click();
    const rows = x.page.locator('#diag-popup tr[data-severity]');
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.first().getAttribute('data-severity'), severity);
    assert.match(await rows.first().innerText(), new RegExp(`${severity}\\s+${path.basename(rel, '.json')}`));
  }));
}

test('diagnostics/bare_events: events without brackets still load, with a warning', () => withFixture('diagnostics/bare_events.json', async (x) => {
  assert.ok((await x.tracks()).some((r) => r.pid === 1 && r.tid === 1 && r.label.includes('Main')));
  assert.deepEqual(await x.slices(await x.thread(1, 1)), [['Work', 5000, 5000, 0]]);
  assert.equal(await x.badge(), '⚠ 1 warning');
}));

test('diagnostics/comment: comments are reported quietly', () => withFixture('diagnostics/comment.json', async (x) => {
  assert.ok((await x.tracks()).some((r) => r.label.includes('Main')));
  assert.deepEqual((await x.drawn()).slices.map((s) => [s.name, s.dur]), [['Load', 5000]]);
  assert.equal(await x.badge(), 'ℹ 2 info');
  const style = await x.page.locator('#diag-badge').evaluate((b) => [getComputedStyle(b).fontWeight, b.style.color]);
  assert.deepEqual(style, ['400', 'var(--muted)']);
}));
