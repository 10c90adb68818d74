// `window.__tracescope`: lets tests (and curious users in the console) see what the
// page drew, computed from the same tiles and culling as the frame itself.

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./api.js').Api} Api */

/**
 * @param {Window & {__tracescope?: unknown}} win
 * @param {Promise<{api: Api, tl: Timeline}>} booted
 * @param {number} rulerH
 */
export function createHook(win, booted, rulerH) {
  const ready = booted.then(() => undefined);
  ready.catch(() => {});
  /** @type {{api: Api, tl: Timeline}|null} */
  let app = null;
  booted.then((a) => (app = a), () => {});
  const need = () => {
    if (!app) throw new Error('tracescope: not ready');
    return app;
  };

  const hook = {
    ready,
    /** Resolves when no request is pending and the latest frame is drawn. */
    async idle() {
      await ready;
      const { api, tl } = need();
      for (let i = 0; i < 100; i++) {
        await api.whenIdle();
        await tl.nextFrame();
        if (api.isIdle() && !tl.pending) return;
      }
      throw new Error('tracescope: never idle');
    },
    /** Rows from top to bottom: process headers, tracks, name-only threads. */
    tracks() {
      const { tl } = need();
      return tl.layout.rows.map((r) => ({
        kind: r.kind, label: r.label, process: r.process.label, pid: r.process.pid,
        tid: r.thread === null ? null : r.process.threads.find((t) => t.id === r.thread)?.tid ?? null,
        track: r.track ? r.track.id : null, trackKind: r.track ? r.track.kind : null,
        rows: r.track ? r.track.rows : 0, y: r.y, h: r.h, collapsed: r.collapsed,
      }));
    },
    /** Items drawn in the last frame on visible tracks, inside the visible time range. */
    drawn() {
      const { tl } = need();
      const { t0, t1 } = tl.scale;
      /** @type {any[]} */ const slices = [];
      /** @type {any[]} */ const instants = [];
      /** @type {any[]} */ const counters = [];
      const seen = new Set();
      for (const [track, tiles] of tl.frameTiles) {
        const row = tl.layout.byTrack.get(track);
        for (const tile of tiles) {
          const d = tile.data;
          if (row && row.track && row.track.kind === 'counter') {
            d.ts.forEach((/** @type {number} */ ts, /** @type {number} */ i) => counters.push({ track, ts, value: d.value[i] }));
            continue;
          }
          for (let i = 0; i < d.ts.length; i++) {
            if (d.ts[i] > t1 || d.ts[i] + d.dur[i] < t0) continue;
            const key = `${track}|${d.id[i]}|${d.ts[i]}|${d.row[i]}`;
            if (seen.has(key)) continue;
            seen.add(key);
            slices.push({
              track, name: d.strings[d.name[i]], ts: d.ts[i], dur: d.dur[i], depth: d.row[i], id: d.id[i],
              count: d.count ? d.count[i] : 1, flags: d.flags ? d.flags[i] : 0,
            });
          }
          const ins = d.instants;
          if (!ins) continue;
          for (let i = 0; i < ins.ts.length; i++) {
            const key = `${track}|i|${ins.id[i]}|${ins.ts[i]}`;
            if (ins.ts[i] < t0 || ins.ts[i] > t1 || seen.has(key)) continue;
            seen.add(key);
            instants.push({ track, name: d.strings[ins.name[i]], ts: ins.ts[i], scope: ins.scope[i] });
          }
        }
      }
      const g = tl.summary.global_instants;
      const globals = g.ts.map((ts, i) => ({ name: g.name[i], ts })).filter((x) => x.ts >= t0 && x.ts <= t1);
      return { slices, instants, counters, globals };
    },
    view() {
      const { tl } = need();
      return { t0: tl.scale.t0, t1: tl.scale.t1, nsPerPx: tl.scale.nsPerPx, scrollTop: tl.scrollTop, frames: tl.frames };
    },
    /** @param {number} t0 @param {number} t1 */
    setView(t0, t1) {
      const { tl } = need();
      tl.scale.set(t0, t1);
      tl.requestDraw();
    },
    selection() {
      return need().tl.selection;
    },
    mark() {
      return need().tl.mark;
    },
    arrows() {
      const { tl } = need();
      return { selected: tl.selArrows, all: tl.allArrows };
    },
    /**
     * Client coordinates of the middle of the visible part of a drawn slice.
     * @param {string} name
     * @param {string} [track]
     */
    locate(name, track) {
      const { tl } = need();
      const s = hook.drawn().slices.find((/** @type {any} */ x) => x.name === name && (!track || x.track === track));
      if (!s) return null;
      const y = tl.rowY(s.track, s.depth);
      if (y === null) return null;
      const a = Math.max(0, tl.scale.toPx(s.ts));
      const b = Math.min(tl.scale.width, tl.scale.toPx(s.ts + s.dur));
      const r = tl.canvas.getBoundingClientRect();
      return { x: r.left + tl.labelW + (a + b) / 2, y: r.top + y };
    },
    /** Start (or stop and return) logging the milliseconds each frame's drawing takes. */
    logDraws(/** @type {boolean} */ on) {
      const { tl } = need();
      const log = tl.drawLog;
      tl.drawLog = on ? [] : null;
      return log;
    },
    /** Start (or stop and return) logging tile request times (ms, measured in the worker). */
    logRequests(/** @type {boolean} */ on) {
      const { api } = need();
      const log = api.timings;
      api.timings = on ? [] : null;
      return log;
    },
    rulerH,
  };
  win.__tracescope = hook;
}
