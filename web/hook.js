// `window.__tracescope`: lets tests (and curious users in the console) see what the
// page drew, computed from the same tiles and culling as the frame itself.

import { contentTop } from './layout.js';

/** @typedef {import('./timeline.js').Timeline} Timeline */
/** @typedef {import('./api.js').Api} Api */
/** @typedef {import('./analysis.js').Analysis} Analysis */
/** @typedef {import('./state.js').Store} Store */
/** @typedef {{api: Api, tl: Timeline, analysis: Analysis, store: Store, search: import('./search.js').Search,
 *   results: import('./searchlist.js').SearchList}} App */

/**
 * @param {Window & {__tracescope?: unknown}} win
 * @param {Promise<App|null>} booted
 * @param {number} rulerH
 */
export function createHook(win, booted, rulerH) {
  const ready = booted.then(() => undefined);
  ready.catch(() => {});
  /** @type {App|null} */
  let app = null;
  let empty = false;
  booted.then((a) => {
    app = a;
    empty = a === null;
  }, () => {});
  const need = () => {
    if (!app) throw new Error(empty ? 'tracescope: the trace is empty (no timeline)' : 'tracescope: not ready');
    return app;
  };

  const hook = {
    ready,
    /** Resolves when no request is pending and the latest frame is drawn. */
    async idle() {
      await ready;
      if (empty) return;
      const { api, tl } = need();
      for (let i = 0; i < 100; i++) {
        await api.whenIdle();
        await tl.nextFrame();
        if (api.isIdle() && !tl.pending) return;
      }
      throw new Error('tracescope: never idle');
    },
    /**
     * Rows from top to bottom: the pinned ones, then process headers, groups,
     * tracks, toggles and name-only threads. `y` is the row's place in its area,
     * `canvasY` the canvas y of its top, `top` that of its first slice row.
     */
    tracks() {
      const { tl } = need();
      return [...tl.layout.pinned, ...tl.layout.rows].map((r) => ({
        kind: r.kind, key: r.key, label: r.label, process: r.process.label, pid: r.process.pid,
        tid: r.thread === null ? null : r.process.threads.find((t) => t.id === r.thread)?.tid ?? null,
        track: r.track ? r.track.id : null, trackKind: r.track ? r.track.kind : null,
        rows: r.track ? r.track.rows : 0, y: r.y, h: r.h, collapsed: r.collapsed, pinned: r.pinned, indent: r.indent,
        canvasY: tl.rowTop(r), top: tl.rowTop(r) + (r.track ? contentTop(r.track) : 0), instants: r.track?.instants ?? 0,
      }));
    },
    /** The state (state.js) as plain data: view, selection, layout choices, tab, theme. */
    state() {
      const { view, selection, mark, pinned, hidden, folds, order, filter, tab, theme, labelW } = need().store.state;
      return JSON.parse(JSON.stringify({ view, selection, mark, pinned, hidden, folds, order, filter, tab, theme, labelW }));
    },
    /** Change the state as the page would. @param {Partial<import('./state.js').ViewState>} patch */
    set(patch) {
      need().store.set(patch);
    },
    /** The label column's width and the pinned area's height. */
    geometry() {
      const { tl } = need();
      return { labelW: tl.labelW, pinnedH: tl.layout.pinnedH, mainTop: tl.mainTop, height: tl.layout.height, width: tl.w };
    },
    /**
     * Client coordinates of a drawn instant (its flag in the instants row).
     * @param {string} name
     */
    locateInstant(name) {
      const { tl } = need();
      const i = hook.drawn().instants.find((/** @type {any} */ x) => x.name === name);
      if (!i) return null;
      const y = tl.rowY(i.track, -1);
      if (y === null) return null;
      const r = tl.canvas.getBoundingClientRect();
      return { x: r.left + tl.labelW + tl.scale.toPx(i.ts), y: r.top + y };
    },
    /**
     * Client coordinates of the middle of a row's label (by key), or null.
     * @param {string} key
     */
    locateLabel(key) {
      const { tl } = need();
      const row = [...tl.layout.pinned, ...tl.layout.rows].find((r) => r.key === key);
      if (!row) return null;
      const r = tl.canvas.getBoundingClientRect();
      return { x: r.left + 40, y: r.top + tl.rowTop(row) + Math.min(row.h, 22) / 2, right: r.left + tl.labelW };
    },
    /** Items drawn in the last frame on visible tracks, inside the visible time range. */
    drawn() {
      const { tl } = need();
      const { t0, t1 } = tl.scale;
      /** @type {any[]} */ const slices = [];
      /** @type {any[]} */ const instants = [];
      /** @type {any[]} */ const counters = [];
      /** @type {any[]} */ const snapshots = [];
      const seen = new Set();
      for (const [track, tiles] of tl.frameTiles) {
        const row = tl.layout.byTrack.get(track);
        for (const tile of tiles) {
          const d = tile.data;
          if (row && row.track && row.track.kind === 'counter') {
            d.ts.forEach((/** @type {number} */ ts, /** @type {number} */ i) => {
              // A point in two tiles (or a coarser one drawn under) counts once.
              const key = `${track}|c|${ts}`;
              if (seen.has(key)) return;
              seen.add(key);
              counters.push({ track, ts, value: d.value[i] });
            });
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
          const sn = d.snapshots;
          for (let i = 0; sn && i < sn.ts.length; i++) {
            const key = `${track}|o|${sn.object[i]}|${sn.index[i]}`;
            if (sn.ts[i] < t0 || sn.ts[i] > t1 || seen.has(key)) continue;
            seen.add(key);
            snapshots.push({ track, ts: sn.ts[i], row: sn.row[i], object: sn.object[i], index: sn.index[i] });
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
      return { slices, instants, counters, globals, snapshots };
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
    /** The marked time span (M, shift-drag), or null. */
    mark() {
      const m = need().tl.mark;
      return m && { t0: m.t0, t1: m.t1 };
    },
    /** The marked range with its tracks (null: all tracks). */
    range() {
      return need().tl.mark;
    },
    /** The slices outlined on the timeline (a range table group). */
    highlighted() {
      const h = need().tl.highlight;
      if (!h) return [];
      return h.id.map((id, i) => ({ id, ts: h.ts[i], dur: h.dur[i], track: h.track[i], row: h.row[i] }));
    },
    /** Resolves when the range table and the profile on screen are loaded. */
    async analysisIdle() {
      await ready;
      const { analysis } = need();
      await analysis.range.done;
      await analysis.profile.done;
    },
    /** The range table as shown: title, grouping, and each row's raw values by column. */
    rangeTable() {
      const { analysis } = need();
      const t = analysis.range.groups;
      const c = analysis.range.counters;
      /** @param {import('./table.js').TableView} v */
      const rows = (v) => v.shownOrder().map((i) => Object.fromEntries(v.columns.map((col) => [col.id, col.value(i)])));
      return { title: analysis.range.title, query: analysis.range.query, groups: rows(t), counters: rows(c) };
    },
    /**
     * Select a range as a shift-drag would (tracks null: all); resolves when its
     * table is shown.
     * @param {number} t0 @param {number} t1 @param {string[]|null} [tracks]
     */
    async selectRange(t0, t1, tracks = null) {
      const { analysis } = need();
      analysis.setRange({ t0, t1, tracks });
      await analysis.range.done;
    },
    /** "Select all with this name"; resolves when the table is shown. @param {string} name */
    async selectAll(name) {
      const { analysis } = need();
      analysis.selectAll(name);
      await analysis.range.done;
    },
    /** Click row `i` (in the order shown) of the range table; resolves when highlighted. @param {number} i */
    async highlightRow(i) {
      const { analysis } = need();
      await analysis.range.highlight(analysis.range.groups.shownOrder()[i]);
    },
    /**
     * Show the Profile tab of the whole trace in a view, fetched anew.
     * @param {'top-down'|'bottom-up'|'flame'} view
     */
    async showProfile(view) {
      const { analysis } = need();
      analysis.tabs.show('profile');
      analysis.profile.view = view;
      await analysis.profile.open({ t0: null, t1: null, threads: null, label: 'Whole trace' });
    },
    /** The profile tab: its view and the tree rows shown (times in ns). */
    profile() {
      const { analysis } = need();
      const p = analysis.profile;
      return { view: p.view, title: p.scope?.label ?? null, samples: p.tree?.answer.samples ?? null, rows: p.rows(), zoom: p.zoom,
        source: p.source, sources: p.sources, threads: p.picker.all.map((t) => t.label), picked: p.picked };
    },
    /** The sandwich on screen: the function chosen, its callers' and callees' trees as [depth, name, total ns]. */
    sandwich() {
      const sw = need().analysis.profile.sandwich;
      /** @param {import('./flamechart.js').FlameChart} f */
      const rows = (f) => {
        const a = f.answer;
        return a ? a.nodes.parent.map((_, i) => [a.nodes.depth[i], a.strings[a.nodes.name[i]], a.nodes.total[i]]) : [];
      };
      return { chosen: sw.chosen ? sw.chosen.name : null, functions: sw.rows.map((r) => [r.name, r.total, r.self, r.count]),
        callers: rows(sw.callers), callees: rows(sw.callees) };
    },
    /** The search: status, current index, matches known, and the Search tab's rows drawn. */
    async search() {
      const { search, results } = need();
      await search.done;
      await results.done;
      const r = search.current;
      return { status: /** @type {HTMLElement} */ (document.getElementById('search-status')).textContent, index: search.index,
        total: r ? r.total : 0, done: r ? r.done : true, order: search.order, rows: results.shown() };
    },
    arrows() {
      const s = need().store.state;
      return { selected: s.selArrows, all: s.allArrows };
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
    /** True when the trace has nothing to draw (the page shows a message instead). */
    isEmpty() {
      return empty || !!app?.tl.noTime;
    },
  };
  win.__tracescope = hook;
}
