// The Profile tab of a trace with one ProfileChunk profile, checked against the
// trees computed straight from the file (cpuprofile.mjs): bottom-up roots, the
// callers of the leaf, the complete top-down tree, the flame graph, and a frame of
// the samples track. Light and dark.
import assert from 'node:assert/strict';
import { shot } from './browser.mjs';
import { readProfile, bottomUpRoots, topDownRows } from './cpuprofile.mjs';
import { withTrace } from './trace-page.mjs';

/**
 * @param {{ctx: any}} browser
 * @param {string} bin
 * @param {string} file
 * @param {string} shotName
 * @param {{leaf: string, caller: string}} names the deepest function and its caller
 */
export async function checkProfileTab(browser, bin, file, shotName, { leaf, caller }) {
  const p = readProfile(file);
  const roots = bottomUpRoots(p);
  const tree = topDownRows(p);
  const leafRoot = roots.find((f) => f.name === leaf);
  for (const dark of [false, true]) {
    await withTrace(browser, bin, file, async (x) => {
      await x.page.locator('#profile-button').click();
      await x.settle();
      let got = await x.profile();
      assert.equal(got.view, 'bottom-up');
      assert.equal(got.samples, p.samples.length);
      assert.deepEqual(got.rows.map((r) => [r.name, r.depth, r.self, r.total, r.samples]), roots.map((f) => [f.name, 0, f.self, f.total, f.samples]));
      const work = [...p.frames.values()].find((f) => f.name === leaf);
      assert.equal(got.rows.find((r) => r.name === leaf).location, `${work.url}:${work.line}:${work.column}`);
      // The leaf's callers: its caller, then (root).
      await x.page.locator('#profile-panel button.expand-all').click();
      got = await x.profile();
      const i = got.rows.findIndex((r) => r.name === leaf);
      assert.deepEqual(got.rows.slice(i, i + 3).map((r) => [r.name, r.depth, r.self]),
        [[leaf, 0, leafRoot.self], [caller, 1, leafRoot.self], ['(root)', 2, leafRoot.self]]);
      await x.page.locator('#profile-panel button.collapse-all').click();
      await x.idle();
      await shot(x.page, `${shotName}-bottom-up${dark ? '-dark' : ''}`);
      // The top-down tree is complete: every node of the file's tree, with its time.
      await x.page.locator('#profile-panel button[data-view="top-down"]').click();
      await x.settle();
      await x.page.locator('#profile-panel button.expand-all').click();
      got = await x.profile();
      assert.deepEqual(got.rows.map((r) => [r.name, r.depth, r.total, r.samples]), tree);
      await x.idle();
      await shot(x.page, `${shotName}-top-down${dark ? '-dark' : ''}`);
      await x.page.locator('#profile-panel button[data-view="flame"]').click();
      await x.settle();
      await shot(x.page, `${shotName}-flame${dark ? '-dark' : ''}`);
      if (dark) return;
      // A frame on the samples track shows its function and location.
      const samples = (await x.tracks()).find((r) => r.trackKind === 'samples').track;
      await x.click(caller, samples);
      await x.page.locator('#details h2', { hasText: caller }).waitFor();
      // The location comes with the frame's details, which may follow the heading.
      await x.page.locator('#details', { hasText: 'Location' }).waitFor();
      const main = [...p.frames.values()].find((f) => f.name === caller);
      assert.match(await x.page.locator('#details').innerText(), new RegExp(`Location\\s+${main.url}:${main.line}:${main.column}`));
      assert.equal((await x.hook(() => window.__tracescope.selection())).kind, 'frame');
    }, { dark });
  }
}
