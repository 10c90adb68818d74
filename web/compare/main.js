// The compare page (`tracescope diff BASE NEW --view`): the two traces' timelines
// one above the other on one time axis (zoom and pan linked, starts or a chosen
// slice aligned), the diff table and the differential flame graph below. Each
// timeline is the viewer's own (timeline.js) over the API of one run of its side
// (`/runs/base/N/api/...`; the first runs' also at `/base/api/...`, `/new/api/...`),
// with a state of its own; with several runs a side, a selector picks the run (the
// URL hash keeps it: `#base=2&new=3`). Test hook: `window.__compare`.
import { Api, getJSON } from '../api.js';
import { Timeline } from '../timeline.js';
import { Store } from '../state.js';
import { setupTheme } from '../theme.js';
import { installKeys } from '../keys.js';
import { esc } from '../format.js';
import { DiffTable } from './difftable.js';
import { DiffFlame } from './diffflame.js';
import { ViewLink, matchOffset } from './link.js';
import { runsFromHash, runsHash } from './runs.js';

/** @typedef {import('./difftable.js').DiffAnswer} DiffAnswer */
/** @typedef {import('./difftable.js').Group} Group */
/** @typedef {import('../types.js').Summary} Summary */
/** @typedef {{name: string, files: string[], start_ns: number|null, end_ns: number|null}} SideInfo */
/** @typedef {{by: string, base: SideInfo, new: SideInfo, significance: string|null}} CompareInfo */
/**
 * One side's timeline: the run it shows (1-based), that run's API and summary,
 * the timeline's state and the timeline. A run picked replaces all but `side`.
 * @typedef {{side: 'base'|'new', run: number, api: Api, summary: Summary, store: Store, tl: Timeline,
 *   resize: ResizeObserver}} Side
 */

const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {string|null} html @param {number} x @param {number} y */
function showTip(html, x, y) {
  const tip = $('tooltip');
  if (html === null) {
    tip.hidden = true;
    return;
  }
  tip.innerHTML = html;
  tip.hidden = false;
  const r = tip.getBoundingClientRect();
  tip.style.left = `${Math.max(0, Math.min(x + 12, window.innerWidth - r.width - 4))}px`;
  tip.style.top = `${Math.max(0, Math.min(y + 14, window.innerHeight - r.height - 4))}px`;
}

/** The API of one run of a side (1-based). @param {'base'|'new'} side @param {number} run */
export const runApi = (side, run) => new Api(run === 1 ? `/${side}` : `/runs/${side}/${run}`);

/**
 * One side's timeline in its section of the page, showing one of its runs: a
 * fresh canvas, state and timeline each time (a run picked later replaces them).
 * @param {'base'|'new'} side
 * @param {number} run 1-based
 * @param {SideInfo} info
 * @param {Store} theme
 * @returns {Promise<Side>}
 */
async function openSide(side, run, info, theme) {
  const api = runApi(side, run);
  const summary = await api.summary();
  const el = $(`${side}-side`);
  /** @type {HTMLElement} */ (el.querySelector('.side-file')).textContent = info.files[run - 1];
  const box = /** @type {HTMLElement} */ (el.querySelector('.tl-box'));
  box.innerHTML = '<div class="scroller" tabindex="-1"><canvas></canvas><div class="spacer"></div></div>';
  const store = new Store({ theme: theme.state.theme });
  const scroller = /** @type {HTMLElement} */ (box.querySelector('.scroller'));
  const tl = new Timeline(
    scroller, /** @type {HTMLCanvasElement} */ (box.querySelector('canvas')),
    /** @type {HTMLElement} */ (box.querySelector('.spacer')), api, summary, store,
  );
  tl.onHover = showTip;
  const resize = new ResizeObserver(() => tl.resize());
  resize.observe(scroller);
  tl.resize();
  return { side, run, api, summary, store, tl, resize };
}

/**
 * The run selector of a side with several runs ("run 2 of 3"), calling `pick`
 * with the run chosen (1-based).
 * @param {'base'|'new'} side
 * @param {SideInfo} info
 * @param {number} run
 * @param {(run: number) => void} pick
 */
function runSelector(side, info, run, pick) {
  if (info.files.length < 2) return;
  const select = document.createElement('select');
  select.className = 'run-select';
  select.id = `${side}-run`;
  select.setAttribute('aria-label', `${side === 'base' ? 'Base' : 'New'} run shown`);
  select.title = 'The run this timeline shows (the table and the flame graph use every run)';
  select.innerHTML = info.files.map((f, i) => `<option value="${i + 1}">run ${i + 1} of ${info.files.length}</option>`).join('');
  select.value = String(run);
  select.addEventListener('change', () => pick(Number(select.value)));
  $(`${side}-side`).querySelector('.side-label')?.insertBefore(select, $(`${side}-side`).querySelector('.side-file'));
}

/**
 * Slices of one group on one side, from its `/api/range/slices` (the whole trace).
 * @param {Side} s
 * @param {string} by name, thread or category
 * @param {string} key
 */
function groupSlices(s, by, key) {
  const t0 = s.summary.start_ns ?? 0;
  const t1 = (s.summary.end_ns ?? t0) + 1;
  const q = { t0, t1, tracks: null, name: null, by: /** @type {import('../types.js').GroupBy} */ (by) };
  return s.api.rangeSlices(q, key, 10000);
}

/** Scroll a timeline so that a track is on screen (time stays: the views are linked). @param {Side} s @param {string} track */
function scrollTo(s, track) {
  const tl = s.tl;
  if (!tl.showTrack(track)) return;
  const r = tl.layout.byTrack.get(track);
  if (!r || r.pinned) return;
  const viewH = tl.h - tl.mainTop;
  if (r.y < tl.scrollTop || r.y + r.h > tl.scrollTop + viewH) tl.scroller.scrollTop = Math.max(0, r.y - viewH / 4);
  tl.requestDraw();
}

async function main() {
  /** @type {CompareInfo} */
  const info = await getJSON('/api/compare');
  const theme = new Store();
  setupTheme(/** @type {HTMLButtonElement} */ ($('theme-button')), theme);
  $('compare-names').innerHTML = `<b>${esc(info.base.name)}</b> <span class="muted">→</span> <b>${esc(info.new.name)}</b>`;
  document.title = `${info.base.name} → ${info.new.name} · tracescope`;
  const runs = runsFromHash(location.hash, info);
  const [b, n] = await Promise.all([openSide('base', runs.base, info.base, theme), openSide('new', runs.new, info.new, theme)]);
  $('status').hidden = true;

  // One axis: the longer trace fits, both starts at the left edge.
  const startOf = (/** @type {Side} */ s) => s.summary.start_ns ?? 0;
  const spanOf = (/** @type {Side} */ s) => Math.max(1000, (s.summary.end_ns ?? 0) - startOf(s));
  const span = Math.max(spanOf(b), spanOf(n));
  let startsOffset = startOf(n) - startOf(b);
  const link = new ViewLink(b.store, n.store, startsOffset);
  b.store.set({ view: { t0: startOf(b) - span * 0.02, t1: startOf(b) + span * 1.02 } });
  let aligned = 'starts';
  const alignStatus = $('align-status');
  const alignStarts = /** @type {HTMLButtonElement} */ ($('align-starts'));
  const alignHere = /** @type {HTMLButtonElement} */ ($('align-here'));
  /** @param {string} how @param {number} offset */
  const align = (how, offset) => {
    aligned = how;
    link.align(offset);
    alignStarts.setAttribute('aria-pressed', String(how === 'starts'));
    alignHere.setAttribute('aria-pressed', String(how !== 'starts'));
    alignStatus.textContent = how === 'starts' ? '' : `on ${how}`;
  };
  alignStarts.addEventListener('click', () => align('starts', startsOffset));

  // Keys act on the timeline under the pointer (the base's otherwise); the other follows.
  let active = b;
  /** The side's events: selections enable "Here", the pointer picks the side keys act on. @param {Side} s */
  const wire = (s) => {
    s.store.on(['selection'], canAlign);
    s.tl.canvas.addEventListener('pointerenter', () => (active = s));
  };
  /**
   * Show another run of a side: its own timeline in place of the other run's, at
   * the same time (starts aligned again: slices of one run are not the other's),
   * the picked group outlined in it.
   * @param {Side} s
   * @param {number} run
   */
  const showRun = async (s, run) => {
    const next = await openSide(s.side, run, info[s.side], theme);
    s.resize.disconnect();
    const view = s.store.state.view;
    Object.assign(s, { run: next.run, api: next.api, summary: next.summary, store: next.store, tl: next.tl, resize: next.resize });
    link.replace(s.side, s.store);
    wire(s);
    startsOffset = startOf(n) - startOf(b);
    if (s === b && view) b.store.set({ view });
    align('starts', startsOffset);
    canAlign();
    const hash = runsHash({ base: b.run, new: n.run });
    history.replaceState(null, '', `${location.pathname}${location.search}${hash ? `#${hash}` : ''}`);
    const was = picked;
    await loadDiff();
    const again = was && answer ? answer.groups.find((g) => g.key === was.key) : null;
    if (again) picking = pick(again);
    await picking;
  };

  /** The selected slice of a side, if a slice is selected. @param {Side} s */
  const slice = (s) => {
    const sel = s.store.state.selection;
    return sel && sel.kind === 'slice' ? sel : null;
  };
  const canAlign = () => {
    alignHere.disabled = !slice(b) && !slice(n);
  };
  // A slice selected on each side: those two; on one side: its match on the other
  // (the same name, the same occurrence in time order).
  const alignOnSelection = async () => {
    const sb = slice(b);
    const sn = slice(n);
    if (sb && sn) return align(`${sb.name} / ${sn.name}`, sn.ts - sb.ts);
    const [mine, other] = sb ? [b, n] : [n, b];
    const sel = sb ?? sn;
    if (!sel) return;
    const [own, far] = await Promise.all([groupSlices(mine, 'name', sel.name), groupSlices(other, 'name', sel.name)]);
    const k = own.id.indexOf(sel.id);
    const off = matchOffset(own.ts, far.ts, k, mine === b);
    if (off === null) {
      alignStatus.textContent = `no ${sel.name} in the ${other.side} trace`;
      return;
    }
    align(`${sel.name} #${k + 1}`, off);
  };
  alignHere.addEventListener('click', () => {
    alignOnSelection().catch((e) => (alignStatus.textContent = e.message));
  });

  theme.on(['theme'], (s) => {
    for (const side of [b, n]) {
      side.store.set({ theme: s.theme });
      side.tl.themeChanged();
    }
    flame.draw();
  });
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    b.tl.themeChanged();
    n.tl.themeChanged();
    flame.draw();
  });

  // The comparison: the table (and its grouping), the flame graph.
  /** @type {DiffAnswer|null} */
  let answer = null;
  /** @type {Group|null} */
  let picked = null;
  const pick = async (/** @type {Group} */ g) => {
    picked = g;
    const by = answer?.by === 'function' ? 'name' : answer?.by ?? 'name';
    await Promise.all([[b, g.base_key], [n, g.new_key]].map(async ([sd, key]) => {
      const s = /** @type {Side} */ (sd);
      if (key === null) return s.store.set({ highlight: null });
      const h = await groupSlices(s, by, /** @type {string} */ (key));
      if (picked !== g) return;
      s.store.set({ highlight: h });
      if (h.track.length) scrollTo(s, h.track[0]);
    }));
  };
  /** The latest group's highlights, both sides (the test hook's idle waits on it). */
  let picking = Promise.resolve();
  const table = new DiffTable($('diff-panel'), (g) => {
    picking = pick(g).catch((e) => console.warn(`highlight: ${e.message}`));
  });
  const flame = new DiffFlame($('flame-panel'), showTip);
  const bySelect = /** @type {HTMLSelectElement} */ ($('group-by'));
  bySelect.value = info.by;
  const loadDiff = async () => {
    answer = await getJSON(`/api/diff?by=${encodeURIComponent(bySelect.value)}&base_run=${b.run}&new_run=${n.run}`);
    picked = null;
    b.store.set({ highlight: null });
    n.store.set({ highlight: null });
    table.show(/** @type {DiffAnswer} */ (answer));
  };
  bySelect.addEventListener('change', () => {
    loadDiff().catch((e) => (table.status.textContent = e.message));
  });
  $('group-filter').addEventListener('input', (e) => table.setFilter(/** @type {HTMLInputElement} */ (e.target).value));
  /** @type {Promise<void>|null} */
  let flameLoaded = null;
  const tabs = { table: $('tab-table'), flame: $('tab-flame') };
  const showTab = (/** @type {'table'|'flame'} */ t) => {
    tabs.table.setAttribute('aria-selected', String(t === 'table'));
    tabs.flame.setAttribute('aria-selected', String(t === 'flame'));
    $('diff-panel').hidden = t !== 'table';
    $('flame-panel').hidden = t !== 'flame';
    if (t === 'flame') {
      flameLoaded ??= getJSON('/api/diff/flame').then((f) => flame.show(f));
      flameLoaded.then(() => flame.draw(), () => {});
    }
    return flameLoaded;
  };
  tabs.table.addEventListener('click', () => showTab('table'));
  tabs.flame.addEventListener('click', () => showTab('flame'));
  await loadDiff();

  for (const s of [b, n]) wire(s);
  /** The run switch under way (the test hook's idle waits on it). */
  let switching = Promise.resolve();
  for (const s of [b, n]) {
    runSelector(s.side, info[s.side], s.run, (run) => {
      switching = showRun(s, run).catch((e) => console.warn(`run ${run}: ${e.message}`));
    });
  }
  installKeys(window, {
    zoom: (f) => {
      const tl = active.tl;
      tl.scale.zoom(f, tl.mouseX !== undefined && tl.mouseX > tl.labelW ? tl.mouseX - tl.labelW : tl.scale.width / 2);
      tl.requestDraw();
    },
    pan: (px) => {
      active.tl.scale.pan(px);
      active.tl.requestDraw();
    },
    width: () => active.tl.scale.width,
    zoomToSelection: () => active.tl.zoomToSelection(),
    mark: () => {},
    help: () => {},
    search: () => $('group-filter').focus(),
    escape: () => {
      for (const s of [b, n]) s.store.set({ selection: null, highlight: null });
    },
    walk: () => {},
  });
  await Promise.all([b.tl.nextFrame(), n.tl.nextFrame()]);
  return { b, n, link, table, flame, showTab, pick, picking: () => picking, switching: () => switching, align: alignOnSelection, aligned: () => aligned, loadDiff };
}

const booted = main();
booted.catch((e) => {
  const s = $('status');
  s.hidden = false;
  s.innerHTML = `<b>Cannot compare these traces.</b> ${esc(/** @type {Error} */ (e).message)}`;
});

// The test hook: what the page shows, and a way to wait until it settles.
/** @type {any} */ (window).__compare = {
  ready: booted.then(() => undefined),
  async idle() {
    const app = await booted;
    for (let i = 0; i < 100; i++) {
      await app.switching();
      await app.picking();
      await Promise.all([app.b.api.whenIdle(), app.n.api.whenIdle()]);
      await Promise.all([app.b.tl.nextFrame(), app.n.tl.nextFrame()]);
      if (app.b.api.isIdle() && app.n.api.isIdle() && !app.b.tl.pending && !app.n.tl.pending) return;
    }
    throw new Error('compare: never idle');
  },
  /** Both views, and the offset between them. */
  async views() {
    const app = await booted;
    return { base: app.b.store.state.view, new: app.n.store.state.view, offset: app.link.offset, aligned: app.aligned() };
  },
  /** The run each timeline shows (1-based), its file, and its processes' labels as laid out. */
  async runs() {
    const app = await booted;
    const side = (/** @type {Side} */ s) => ({
      run: s.run,
      file: /** @type {HTMLElement} */ ($(`${s.side}-side`).querySelector('.side-file')).textContent,
      processes: s.tl.layout.rows.filter((r) => r.kind === 'process').map((r) => r.label),
    });
    return { base: side(app.b), new: side(app.n), hash: location.hash };
  },
    /** The groups in the order the table shows them, with their change. */
  async groups() {
    const app = await booted;
    return app.table.table.shownOrder().map((/** @type {number} */ i) => {
      const g = app.table.rows[i];
      return { key: g.key, change: g.change, delta_total: g.delta.total_ns, base: g.base, new: g.new };
    });
  },
  /** The slices outlined on each side (ids, tracks). */
  async highlights() {
    const app = await booted;
    const h = (/** @type {Side} */ s) => {
      const x = s.store.state.highlight;
      return x ? { id: [...x.id], ts: [...x.ts], track: [...x.track] } : null;
    };
    return { base: h(app.b), new: h(app.n) };
  },
  /** Open the flame graph and report its frames as drawn. */
  async flame() {
    const app = await booted;
    await app.showTab('flame');
    const f = app.flame;
    if (!f.answer) return [];
    const nodes = f.answer.nodes;
    return f.rects.map((/** @type {import('./diffflame.js').FlameRect} */ r) => ({
      name: nodes.name[r.i], depth: r.depth, x: r.x, w: r.w,
      base_total: nodes.base_total[r.i], new_total: nodes.new_total[r.i],
      base_self: nodes.base_self[r.i], new_self: nodes.new_self[r.i],
    }));
  },
  /** Select a slice on one side by id, as a click would (null: clear). @param {'base'|'new'} side @param {number|null} id */
  async select(side, id) {
    const app = await booted;
    const s = side === 'base' ? app.b : app.n;
    if (id === null) return s.tl.select(null);
    const d = await s.api.item('slice', id);
    s.tl.select({ kind: 'slice', id, track: d.track, row: d.depth, ts: d.ts, dur: d.dur, name: d.name });
  },
};
