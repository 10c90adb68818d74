// One trace opened by the real `tracescope view` in a page, with the helpers the
// viewer's end-to-end tests read it with (window.__tracescope, see web/hook.js).
import assert from 'node:assert/strict';
import { openPage, shot } from './browser.mjs';
import { startServer } from './server.mjs';

/** Clipped duration of [ts, ts+dur) in the range [r.t0, r.t1). */
export const clip = (ts, dur, r) => Math.max(0, Math.min(r.t1, ts + dur) - Math.max(r.t0, ts));

/**
 * Track id of a thread's i-th track among the page's rows.
 * @param {any[]} rows window.__tracescope.tracks()
 */
export function threadTrack(rows, pid, tid, i = 0) {
  const t = rows.filter((r) => r.kind === 'track' && r.pid === pid && r.tid === tid);
  assert.ok(t[i], `thread ${pid}/${tid} has a track #${i}: ${JSON.stringify(rows.map((r) => [r.label, r.pid, r.tid]))}`);
  return t[i].track;
}

/**
 * [name, ts, dur, depth] of the drawn slices on a track, in time then depth order.
 * @param {{slices: any[]}} drawn window.__tracescope.drawn()
 */
export function slicesOn(drawn, track) {
  return drawn.slices.filter((s) => s.track === track).map((s) => [s.name, s.ts, s.dur, s.depth])
    .sort((a, b) => a[1] - b[1] || a[3] - b[3]);
}

/**
 * Serves `file`, opens it, runs `check(x)`, takes the screenshot `shotName` if given
 * and asserts no console errors.
 * @param {{ctx: any}} browser
 * @param {string} bin the tracescope binary
 * @param {string} file the trace
 * @param {(x: any) => Promise<void> | void} check
 * @param {{dark?: boolean, shotName?: string, extra?: string[]}} [opts] `extra`: more
 *   arguments of `tracescope view` (`--follow`)
 */
export async function withTrace(browser, bin, file, check, { dark = false, shotName, extra = [] } = {}) {
  const srv = await startServer(bin, file, extra);
  try {
    const { page, errors } = await openPage(browser.ctx, srv.url);
    if (dark) await page.emulateMedia({ colorScheme: 'dark' });
    const hook = (fn, arg) => page.evaluate(fn, arg);
    const idle = () => hook(() => window.__tracescope.idle());
    const x = {
      page, hook, idle,
      settle: async () => {
        await hook(() => window.__tracescope.analysisIdle());
        await idle();
      },
      table: () => hook(() => window.__tracescope.rangeTable()),
      profile: () => hook(() => window.__tracescope.profile()),
      tracks: () => hook(() => window.__tracescope.tracks()),
      drawn: () => hook(() => window.__tracescope.drawn()),
      badge: () => page.locator('#diag-badge').innerText(),
      /** The selected item's name, once the page is idle. */
      async selected() {
        await page.waitForTimeout(100);
        await idle();
        return (await hook(() => window.__tracescope.selection())).name;
      },
      thread: async (pid, tid, i = 0) => threadTrack(await x.tracks(), pid, tid, i),
      slices: async (track) => slicesOn(await x.drawn(), track),
      /** Click the drawn item `name` (on `track` if given). */
      async click(name, track) {
        const p = await hook(([n, t]) => window.__tracescope.locate(n, t), [name, track]);
        assert.ok(p, `${name} is drawn`);
        await page.mouse.click(p.x, p.y);
        await idle();
      },
      /** Client point of time t on row `row` of a track. */
      async at(t, track, row = 0) {
        const box = await page.locator('#canvas').boundingBox();
        const v = await hook(() => window.__tracescope.view());
        const r = (await x.tracks()).find((q) => q.track === track);
        return { x: box.x + box.width - (v.t1 - t) / v.nsPerPx, y: box.y + r.top + row * 18 + 9 };
      },
      async shiftDrag(a, b) {
        await page.keyboard.down('Shift');
        await page.mouse.move(a.x, a.y);
        await page.mouse.down();
        await page.mouse.move(b.x, b.y, { steps: 6 });
        await page.mouse.up();
        await page.keyboard.up('Shift');
        await x.settle();
      },
    };
    await check(x);
    if (shotName) await shot(page, shotName);
    assert.deepEqual(errors, [], 'no console errors');
  } finally {
    await srv.close();
  }
}
