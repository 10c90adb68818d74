// `tracescope view --follow`: while the server follows a growing file, ask it for
// the version after the one shown (it answers when that version is served, or
// after a while with the same one); on a new one, fetch the summary again and let
// the tiles reload, keeping the user's view (range, selection, pins, folds: all
// in the state, which is left alone). "Stick to end" slides the window, at its
// width, so its end is the newest event (like `tail -f`).
import { formatCount } from './format.js';

/** @typedef {import('./types.js').Summary} Summary */
/** @typedef {{version: number, follow: boolean, updated?: number, events?: number, bytes?: number}} Version */

/** After an error, or from a server that answers at once, ask again after this. */
export const RETRY_MS = 1000;

/**
 * Start following if the server follows a file; returns the follower (null when
 * it does not), for the test hook.
 * @param {{
 *   api: import('./api.js').Api,
 *   tl: import('./timeline.js').Timeline,
 *   store: import('./state.js').Store,
 *   summary: Summary,
 *   box: HTMLElement, updated: HTMLElement, stick: HTMLInputElement, facts: HTMLElement,
 * }} page
 */
export async function setupLive(page) {
  const v = await version(page.api.base);
  if (!v || !v.follow) return null;
  const live = new Live(page, v);
  void live.start();
  return live;
}

/**
 * The version served; with `after`, the server waits until one after it is served.
 * @param {string} base @param {number} [after] @returns {Promise<Version|null>}
 */
async function version(base, after) {
  try {
    const wait = after === undefined ? '' : `?after=${after}`;
    const r = await fetch(`${base}/api/version${wait}`, { cache: 'no-store' });
    return r.ok ? /** @type {Version} */ (await r.json()) : null;
  } catch {
    return null;
  }
}

/** `HH:MM:SS` of a Unix time in ms, local time. @param {number} ms */
export function clock(ms) {
  const d = new Date(ms);
  return [d.getHours(), d.getMinutes(), d.getSeconds()].map((x) => String(x).padStart(2, '0')).join(':');
}

/**
 * The window that ends at the trace's end, at the width of `view` (its margin
 * after the end kept as it was, at most 2% of the width).
 * @param {{t0: number, t1: number}} view @param {number} end
 */
export function stuckWindow(view, end) {
  const w = view.t1 - view.t0;
  const pad = w * 0.02;
  return { t0: end + pad - w, t1: end + pad };
}

class Live {
  /** @param {Parameters<typeof setupLive>[0]} page @param {Version} v */
  constructor(page, v) {
    this.page = page;
    this.version = v.version;
    /** Versions shown since the page opened (for tests). */
    this.updates = 0;
    page.box.hidden = false;
    this.showUpdated(v);
    page.stick.addEventListener('change', () => {
      if (page.stick.checked) this.stickToEnd();
    });
  }

  /** Asks for the next version, again and again, for the life of the page. */
  async start() {
    for (;;) {
      const asked = Date.now();
      const v = await version(this.page.api.base, this.version);
      const shown = this.version;
      if (v) await this.show(v).catch((e) => console.warn(`follow: ${/** @type {Error} */ (e).message}`));
      if (!v || (this.version === shown && Date.now() - asked < 200)) {
        await new Promise((done) => window.setTimeout(done, RETRY_MS));
      }
    }
  }

  /** @param {Version} v */
  showUpdated(v) {
    const el = this.page.updated;
    el.textContent = v.updated ? `updated ${clock(v.updated)}` : '';
    el.title = `version ${v.version} of the file: ${formatCount(v.events ?? 0)} events, ${formatCount(v.bytes ?? 0)} bytes`;
  }

  /** Shows version `v` when it is not the one shown. @param {Version} v */
  async show(v) {
    if (v.version === this.version) return;
    const { api, tl, summary } = this.page;
    // A page opened on an empty file has no timeline to update: open it again.
    if (tl.noTime || !summary.processes.length) {
      location.reload();
      return;
    }
    const next = await api.summary();
    this.version = v.version;
    // The page's one summary object, updated in place: every view holds it.
    Object.assign(summary, next);
    tl.setSummary(summary);
    api.refresh();
    const n = summary.processes.length;
    this.page.facts.textContent = `${formatCount(summary.events)} event${summary.events === 1 ? '' : 's'} · ${formatCount(n)} process${n === 1 ? '' : 'es'}`;
    if (this.page.stick.checked) this.stickToEnd();
    else tl.requestDraw();
    this.showUpdated(v);
    this.updates++;
    await this.reselect();
  }

  stickToEnd() {
    const { tl, summary } = this.page;
    const w = stuckWindow(tl.scale, summary.end_ns);
    tl.scale.set(w.t0, w.t1);
    tl.requestDraw();
  }

  /** The selected slice's id in the new version (ids are rows: they may move). */
  async reselect() {
    const { store, api } = this.page;
    const sel = store.state.selection;
    if (!sel || (sel.kind !== 'slice' && sel.kind !== 'async')) return;
    const t1 = sel.ts + Math.max(1, sel.dur);
    const r = await fetch(`${api.base}/api/track/${encodeURIComponent(sel.track)}?t0=${sel.ts}&t1=${t1}&px=1000`);
    if (!r.ok) return;
    const d = await r.json();
    for (let i = 0; i < d.ts.length; i++) {
      if (d.ts[i] === sel.ts && d.row[i] === sel.row && d.dur[i] === sel.dur && d.id[i] >= 0) {
        if (d.id[i] !== sel.id && store.state.selection === sel) store.set({ selection: { ...sel, id: d.id[i] } });
        return;
      }
    }
  }
}
