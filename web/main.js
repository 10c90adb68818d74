// Boot: load the summary, build the page around one state (state.js), restore the
// view from the URL hash, wire the views together, expose the test hook
// `window.__tracescope`.
import { Api } from './api.js';
import { Timeline, RULER_H } from './timeline.js';
import { DetailsPanel } from './details.js';
import { Search, instantWindow } from './search.js';
import { SearchList } from './searchlist.js';
import { installKeys } from './keys.js';
import { setupHelp } from './help.js';
import { setupDiagnostics } from './diagnostics.js';
import { formatCount, esc } from './format.js';
import { createHook } from './hook.js';
import { Analysis } from './analysis.js';
import { QueryPanel } from './querypanel.js';
import { rangeOf } from './range.js';
import { Store } from './state.js';
import { setupTheme } from './theme.js';
import { setupTrackBar } from './trackbar.js';
import { syncHash } from './hash.js';
import { showInstant, showScreenshot } from './itemdetails.js';
import { emptyTraceMessage, openEmpty } from './empty.js';
import { setupLive } from './live.js';

/** @typedef {import('./timeline.js').Selection} Selection */
/** @typedef {import('./types.js').Details} Details */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

async function main() {
  const api = new Api('');
  const store = new Store();
  setupTheme(/** @type {HTMLButtonElement} */ ($('theme-button')), store);
  let summary;
  try {
    summary = await api.summary();
  } catch (e) {
    $('status').textContent = `Cannot load the trace: ${/** @type {Error} */ (e).message}`;
    throw e;
  }
  document.title = `${summary.name} · tracescope`;
  $('trace-name').textContent = summary.name;
  const n = summary.processes.length;
  const facts = $('trace-facts');
  facts.textContent = facts.title = `${formatCount(summary.events)} event${summary.events === 1 ? '' : 's'} · ${formatCount(n)} process${n === 1 ? '' : 'es'}`;
  setupDiagnostics(/** @type {HTMLButtonElement} */ ($('diag-badge')), $('diag-popup'), summary.diagnostics);
  const help = setupHelp($('help'));
  $('help-button').addEventListener('click', () => help.toggle());
  const empty = emptyTraceMessage(summary);
  const status = $('status');
  /** @param {import('./timeline.js').Timeline} tl */
  const follow = (tl) => setupLive({ api, tl, store, summary, box: $('live'), updated: $('live-updated'), stick: /** @type {HTMLInputElement} */ ($('live-stick')), facts });
  if (empty !== null) {
    // Nothing has a time: no axis to draw. Say so; the names it holds stay listed.
    status.innerHTML = empty;
    status.classList.add('empty-trace');
    if (summary.processes.length === 0) {
      $('trackbar').hidden = true;
      // A followed file with no event yet: the page reopens when one comes.
      follow(/** @type {any} */ ({ noTime: true }));
      return null;
    }
    store.set({ folds: openEmpty(summary) });
  } else {
    status.hidden = true;
  }

  const tl = new Timeline($('scroller'), /** @type {HTMLCanvasElement} */ ($('canvas')), $('spacer'), api, summary, store);
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => tl.themeChanged());

  /** @type {Details|null} */
  let current = null;
  let selSeq = 0;
  const panel = new DetailsPanel($('details'), summary.start_ns, (kind, id) => goTo(kind, id));
  const tip = $('tooltip');
  /** @param {string|null} html @param {number} x @param {number} y */
  const showTip = (html, x, y) => {
    if (html === null) {
      tip.hidden = true;
      return;
    }
    tip.innerHTML = html;
    tip.hidden = false;
    const place = () => {
      const r = tip.getBoundingClientRect();
      tip.style.left = `${Math.max(0, Math.min(x + 12, window.innerWidth - r.width - 4))}px`;
      tip.style.top = `${Math.max(0, Math.min(y + 14, window.innerHeight - r.height - 4))}px`;
    };
    place();
    // A preview image takes its size when it arrives.
    for (const img of tip.querySelectorAll('img')) img.addEventListener('load', place, { once: true });
  };
  tl.onHover = showTip;
  const analysis = new Analysis(api, tl, panel, showTip);
  const counts = { slices: Number(summary.stats.slices), instants: Number(summary.stats.instants) };
  const query = new QueryPanel($('query-panel'), counts,
    // Selecting shows the details, offered beside the Query tab, which stays in front.
    (item) => {
      const selected = item.kind !== 'instant' ? goTo(item.kind, item.id) : api.instant(item.id).then((d) => {
        tl.reveal(d.track ?? '', -1, d.ts, 0);
        tl.select({ kind: 'instant', id: item.id, track: d.track ?? '', row: -1, ts: d.ts, dur: 0, name: d.name });
      });
      selected.then(() => analysis.tabs.show('query')).catch((e) => panel.error(e.message));
    },
    (ts, dur) => {
      const pad = Math.max(1000, dur * 0.1);
      tl.scale.set(ts - pad, ts + dur + pad);
      tl.requestDraw();
    });
  analysis.tabs.onShow = ((show) => (/** @type {string} */ name) => {
    show(name);
    if (name === 'query') query.focus();
  })(analysis.tabs.onShow);
  store.on(['theme'], () => {
    tl.themeChanged();
    if (analysis.profile.view === 'flame') analysis.profile.drawFlame();
  });

  /** Select an item by id: fetch its details, reveal it, select it. @param {'slice'|'async'} kind @param {number} id */
  async function goTo(kind, id) {
    const d = await api.item(kind, id);
    // The row on its track: the depth, unless the server says otherwise (async lanes).
    const row = d.row ?? d.depth;
    tl.reveal(d.track, row, d.ts, d.dur);
    tl.select({ kind, id, track: d.track, row, ts: d.ts, dur: d.dur, name: d.name });
  }

  store.on(['selection'], async (s) => {
    const sel = s.selection;
    const seq = ++selSeq;
    current = null;
    if (!sel) return panel.hide();
    panel.showBasic(sel);
    if (sel.kind === 'frame' || sel.kind === 'object' || sel.kind === 'snapshot') return analysis.showItem(sel);
    if (sel.kind === 'screenshot') return showScreenshot(panel, sel, tl.images.url(sel.id), summary.start_ns);
    try {
      if (sel.kind === 'instant') {
        const d = await api.instant(sel.id);
        if (seq === selSeq) showInstant(panel, d, summary);
        return;
      }
      if (sel.kind !== 'slice' && sel.kind !== 'async') return;
      const d = await api.item(sel.kind, sel.id);
      if (seq !== selSeq) return;
      current = d;
      panel.show(d, sel.kind);
      const arrows = await arrowsOf(d);
      if (seq === selSeq) store.set({ selArrows: arrows });
    } catch (e) {
      if (seq === selSeq) panel.error(/** @type {Error} */ (e).message);
    }
  });

  /** Arrows for the flows of a selected item. The far end's track and row come with
   * the flow when the server gives them, else from that item's details.
   * @param {Details} d */
  async function arrowsOf(d) {
    const flows = [...d.flows_in.map((f) => ({ f, far: f.from, out: false })), ...d.flows_out.map((f) => ({ f, far: f.to, out: true }))].slice(0, 50);
    const ends = await Promise.all(
      flows.map(({ far }) =>
        far.track ? { track: far.track, depth: far.row ?? 0 } : api.item(far.kind, far.id).catch(() => null),
      ),
    );
    const arrows = [];
    for (let i = 0; i < flows.length; i++) {
      const e = ends[i];
      if (!e) continue;
      const { f, out } = flows[i];
      const me = { track: d.track, row: d.row ?? d.depth };
      const far = { track: e.track, row: 'row' in e && e.row !== undefined ? e.row : e.depth };
      const [a, b] = out ? [me, far] : [far, me];
      arrows.push({ fromTs: f.from_ts, fromTrack: a.track, fromRow: a.row, toTs: f.to_ts, toTrack: b.track, toRow: b.row });
    }
    return arrows;
  }

  // Every flow in view, refetched (debounced) when the view changes.
  const flowsBox = /** @type {HTMLInputElement} */ ($('show-flows'));
  let flowsKey = '';
  let flowsTimer = 0;
  /** @type {AbortController|null} */
  let flowsCtrl = null;
  const refreshFlows = () => {
    if (!flowsBox.checked) {
      if (store.state.allArrows.length) store.set({ allArrows: [] });
      flowsKey = '';
      return;
    }
    const key = `${tl.scale.t0}:${tl.scale.t1}`;
    if (key === flowsKey) return;
    flowsKey = key;
    clearTimeout(flowsTimer);
    flowsTimer = window.setTimeout(async () => {
      if (flowsCtrl) flowsCtrl.abort();
      flowsCtrl = new AbortController();
      try {
        const f = await api.flows(tl.scale.t0, tl.scale.t1, flowsCtrl.signal);
        store.set({ allArrows: f.from_ts.map((_, i) => ({ fromTs: f.from_ts[i], fromTrack: f.from_track[i], fromRow: f.from_row[i], toTs: f.to_ts[i], toTrack: f.to_track[i], toRow: f.to_row[i] })) });
      } catch (e) {
        if (/** @type {Error} */ (e).name !== 'AbortError') console.warn(`flows: ${/** @type {Error} */ (e).message}`);
      }
    }, 120);
  };
  flowsBox.addEventListener('change', refreshFlows);
  tl.onFrame = refreshFlows;

  const search = new Search(
    {
      input: /** @type {HTMLInputElement} */ ($('search')), status: $('search-status'),
      prev: /** @type {HTMLButtonElement} */ ($('search-prev')), next: /** @type {HTMLButtonElement} */ ($('search-next')),
      regex: /** @type {HTMLInputElement} */ ($('search-regex')), list: /** @type {HTMLButtonElement} */ ($('search-list')),
    },
    api,
    (hl) => store.set({ search: hl }),
    (m) => {
      if (m.kind === 'slice' || m.kind === 'async') {
        goTo(m.kind, m.id).catch((e) => panel.error(e.message));
      } else {
        // Instants come with row -1 (and track "" unless thread-scoped); the view
        // zooms in on them, so the one chosen stands out from its neighbours.
        tl.reveal(m.track, -1, m.ts, m.dur);
        const w = instantWindow(tl.scale, m.ts, summary.end_ns - summary.start_ns);
        tl.scale.set(w.t0, w.t1);
        tl.requestDraw();
        tl.select({ kind: 'instant', id: m.id, track: m.track, row: -1, ts: m.ts, dur: 0, name: m.name });
      }
    },
  );
  const results = new SearchList($('search-panel'), search, summary.start_ns, (id) => analysis.trackName(id));
  analysis.tabs.add('search', 'Search', $('search-panel'));
  search.onChange = () => {
    if (search.current) analysis.tabs.enable('search');
    else analysis.tabs.remove('search');
    results.update();
  };
  search.onList = () => analysis.tabs.show('search');

  /** Arrow keys: parent, first child, siblings (from the parent's children, or
   * for a top-level slice the neighbours drawn on its row). @param {'left'|'right'|'up'|'down'} dir */
  async function walk(dir) {
    const sel = tl.selection;
    if (!sel || !current || (sel.kind !== 'slice' && sel.kind !== 'async')) return;
    const kind = sel.kind;
    const d = current;
    if (dir === 'up' && d.parents.length) return goTo(kind, d.parents[0].id);
    if (dir === 'down' && d.children.length) return goTo(kind, d.children[0].id);
    if (dir !== 'left' && dir !== 'right') return;
    if (d.parents.length) {
      const p = await api.item(kind, d.parents[0].id);
      const i = p.children.findIndex((c) => c.id === d.id);
      const j = i + (dir === 'left' ? -1 : 1);
      if (i >= 0 && j >= 0 && j < p.children.length) goTo(kind, p.children[j].id);
      return;
    }
    let best = null;
    for (const t of tl.frameTiles.get(d.track) || []) {
      const x = t.data;
      for (let k = 0; k < x.ts.length; k++) {
        if (x.row[k] !== sel.row || x.id[k] < 0 || x.id[k] === d.id) continue;
        const ok = dir === 'left' ? x.ts[k] < d.ts : x.ts[k] > d.ts;
        if (ok && (!best || (dir === 'left' ? x.ts[k] > best.ts : x.ts[k] < best.ts))) best = { ts: x.ts[k], id: x.id[k] };
      }
    }
    if (best) goTo(kind, best.id);
  }

  const trackbar = setupTrackBar($('trackbar'), tl, store);
  installKeys(window, {
    zoom: (f) => {
      tl.scale.zoom(f, tl.mouseX !== undefined && tl.mouseX > tl.labelW ? tl.mouseX - tl.labelW : tl.scale.width / 2);
      tl.requestDraw();
    },
    pan: (px) => {
      tl.scale.pan(px);
      tl.requestDraw();
    },
    width: () => tl.scale.width,
    zoomToSelection: () => tl.zoomToSelection(),
    mark: () => {
      // The selection's range, unless that is the range already marked: then unmark.
      const m = tl.mark;
      const r = tl.selection && rangeOf(tl.selection);
      if (r && !(m && !m.tracks && m.t0 === r.t0 && m.t1 === r.t1)) analysis.setRange(r);
      else if (m) analysis.clearRange();
    },
    help: () => help.toggle(),
    search: () => search.focus(),
    escape: () => {
      const open = !$('help').hidden || !$('diag-popup').hidden || trackbar.closePopup();
      help.close();
      $('diag-popup').hidden = true;
      // One thing at a time: an overlay, else the selection, else the range.
      if (open) return;
      if (tl.selection) tl.select(null);
      else if (tl.mark || tl.highlight) analysis.clearRange();
    },
    walk: (dir) => {
      walk(dir).catch((e) => panel.error(e.message));
    },
  });

  new ResizeObserver(() => tl.resize()).observe($('scroller'));
  tl.resize();
  await syncHash(window, store, summary, { analysis, goTo, tl });
  await follow(tl);
  await tl.nextFrame();
  return { api, tl, search, results, panel, analysis, store, query };
}

const booted = main();
// The test hook: what is drawn, and a way to wait until drawing settles.
createHook(window, booted, RULER_H);
booted.catch((e) => {
  const s = $('status');
  s.hidden = false;
  s.innerHTML = `<b>Cannot show this trace.</b> ${esc(/** @type {Error} */ (e).message)}`;
});
