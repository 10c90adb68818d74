// Launch Debian's chromium through playwright-core, and collect console errors.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

/** A fresh browser with its own profile directory. */
export async function launch() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tracescope-chromium-'));
  const ctx = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 800 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run'],
  });
  return {
    ctx,
    async close() {
      await ctx.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Open `url` in a new page that records console errors and page errors, and wait
 * until the page says it is idle (`ready`, run in the page: the viewer's hook by
 * default).
 */
export async function openPage(ctx, url, ready = () => window.__tracescope.idle()) {
  const page = await ctx.newPage();
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.evaluate(ready);
  return { page, errors };
}

export const SHOTS = path.resolve(process.env.SCREENSHOTS || 'artifacts/screenshots');

/** Save a screenshot as a CI artifact. */
export async function shot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}
