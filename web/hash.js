// Views that last: the URL hash holds the visible range, the selection, the marked
// range, the pinned, hidden and folded tracks, the user's row order, the track
// filter, the label width, the open tab and the scroll position. It is rewritten
// (replaceState, no history entries) shortly after the state changes, and read at
// boot and when the user edits it, for the same trace only (a key of the trace's
// name, size and times).

/** @typedef {import('./state.js').ViewState} ViewState */
/** @typedef {import('./state.js').Store} Store */
/** @typedef {import('./timeline.js').Selection} Selection */
/** @typedef {import('./types.js').Summary} Summary */

/** Milliseconds of quiet before the hash is rewritten. */
export const HASH_DELAY = 250;

const SEL_KINDS = ['slice', 'async', 'merged', 'instant', 'frame', 'object', 'snapshot', 'screenshot'];

/**
 * A short key of the trace (FNV-1a of its name, event count and times), so a
 * hash from another trace is not applied.
 * @param {Pick<Summary, 'name'|'events'|'start_ns'|'end_ns'>} s
 */
export function traceKey(s) {
  const text = `${s.name}|${s.events}|${s.start_ns}|${s.end_ns}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(36);
}

/**
 * What the hash holds, besides the state's keys: the scroll position.
 * @typedef {{key: string, state: Partial<ViewState>, scroll: number|null}} HashView
 */

/**
 * The hash (without `#`) for a state.
 * @param {ViewState} s
 * @param {string} key
 * @param {number} [scroll]
 */
export function encodeHash(s, key, scroll = 0) {
  const p = new URLSearchParams();
  p.set('k', key);
  if (s.view) p.set('t', `${Math.round(s.view.t0)},${Math.round(s.view.t1)}`);
  const sel = s.selection;
  if (sel) {
    const f = [sel.kind, sel.id, sel.track, sel.row, sel.ts, sel.dur];
    if (sel.index !== undefined) f.push(sel.index);
    p.set('sel', f.join(','));
    p.set('sn', sel.name);
    if (sel.scope) p.set('ss', sel.scope);
  }
  if (s.mark) {
    p.set('r', `${s.mark.t0},${s.mark.t1}`);
    if (s.mark.tracks) p.set('rt', s.mark.tracks.join(','));
  }
  if (s.pinned.length) p.set('pin', s.pinned.join(','));
  if (s.hidden.length) p.set('hide', s.hidden.join(','));
  const folds = Object.entries(s.folds);
  const folded = folds.filter(([, v]) => v).map(([k]) => k);
  const open = folds.filter(([, v]) => !v).map(([k]) => k);
  if (folded.length) p.set('fold', folded.join(','));
  if (open.length) p.set('open', open.join(','));
  const order = Object.entries(s.order).filter(([, v]) => v.length);
  if (order.length) p.set('o', order.map(([k, v]) => `${k}~${v.join('.')}`).join(';'));
  if (s.filter) p.set('f', s.filter);
  if (s.labelW !== null) p.set('lw', String(Math.round(s.labelW)));
  if (s.tab) p.set('tab', s.tab);
  if (scroll > 0) p.set('y', String(Math.round(scroll)));
  return p.toString();
}

/** @param {string|null} v */
const list = (v) => (v ? v.split(',').filter((x) => x !== '') : []);
/** @param {string|null} v */
const num = (v) => (v !== null && v !== '' && Number.isFinite(Number(v)) ? Number(v) : null);

/**
 * The view a hash holds, or null when it holds none. Malformed parts are skipped.
 * @param {string} hash with or without `#`
 * @returns {HashView|null}
 */
export function decodeHash(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const key = p.get('k');
  if (!key) return null;
  /** @type {Partial<ViewState>} */
  const state = {};
  const t = list(p.get('t')).map(Number);
  if (t.length === 2 && t.every(Number.isFinite) && t[1] > t[0]) state.view = { t0: t[0], t1: t[1] };
  const sel = p.get('sel')?.split(',');
  if (sel && sel.length >= 6 && SEL_KINDS.includes(sel[0])) {
    const [id, row, ts, dur] = [sel[1], sel[3], sel[4], sel[5]].map(Number);
    if ([id, row, ts, dur].every(Number.isFinite)) {
      /** @type {Selection} */
      const s = { kind: /** @type {Selection['kind']} */ (sel[0]), id, track: sel[2], row, ts, dur, name: p.get('sn') ?? '' };
      const index = num(sel[6] ?? null);
      if (index !== null) s.index = index;
      const scope = p.get('ss');
      if (scope) s.scope = scope;
      state.selection = s;
    }
  }
  const r = list(p.get('r')).map(Number);
  if (r.length === 2 && r.every(Number.isFinite) && r[1] > r[0]) {
    state.mark = { t0: r[0], t1: r[1], tracks: p.has('rt') ? list(p.get('rt')) : null };
  }
  if (p.has('pin')) state.pinned = list(p.get('pin'));
  if (p.has('hide')) state.hidden = list(p.get('hide'));
  if (p.has('fold') || p.has('open')) {
    /** @type {Record<string, boolean>} */
    const folds = {};
    for (const k of list(p.get('fold'))) folds[k] = true;
    for (const k of list(p.get('open'))) folds[k] = false;
    state.folds = folds;
  }
  if (p.has('o')) {
    /** @type {Record<string, string[]>} */
    const order = {};
    for (const part of (p.get('o') ?? '').split(';')) {
      const [k, v] = part.split('~');
      if (k && v) order[k] = v.split('.').filter((x) => x !== '');
    }
    state.order = order;
  }
  if (p.has('f')) state.filter = p.get('f') ?? '';
  const lw = num(p.get('lw'));
  if (lw !== null) state.labelW = lw;
  if (p.has('tab')) state.tab = p.get('tab');
  return { key, state, scroll: num(p.get('y')) };
}

/**
 * @typedef {{analysis: import('./analysis.js').Analysis, tl: import('./timeline.js').Timeline,
 *   goTo: (kind: 'slice'|'async', id: number) => Promise<void>}} App
 */

/**
 * Apply a hash's view: layout first, then the view, the range, the selection, the
 * tab and the scroll position.
 * @param {HashView} h
 * @param {Store} store
 * @param {App} app
 */
export function applyHash(h, store, app) {
  const { selection, mark, tab, ...rest } = h.state;
  store.set(rest);
  if (mark) app.analysis.setRange(mark);
  if (selection) store.set({ selection });
  if (tab) app.analysis.tabs.show(tab);
  if (h.scroll !== null) app.tl.scroller.scrollTop = h.scroll;
  app.tl.requestDraw();
}

/**
 * Restore the view from the URL hash, then keep the hash up to date.
 * @param {Window} win
 * @param {Store} store
 * @param {Summary} summary
 * @param {App} app
 */
export async function syncHash(win, store, summary, app) {
  const key = traceKey(summary);
  let written = '';
  const read = () => {
    const h = decodeHash(win.location.hash);
    if (h && h.key === key) applyHash(h, store, app);
  };
  read();
  let timer = 0;
  const write = () => {
    clearTimeout(timer);
    timer = win.setTimeout(() => {
      written = encodeHash(store.state, key, app.tl.scroller.scrollTop);
      if (win.location.hash.replace(/^#/, '') !== written) win.history.replaceState(null, '', `#${written}`);
    }, HASH_DELAY);
  };
  store.on(['view', 'selection', 'mark', 'pinned', 'hidden', 'folds', 'order', 'filter', 'labelW', 'tab'], write);
  app.tl.scroller.addEventListener('scroll', write);
  // A hash typed or pasted by the user (not the one just written).
  win.addEventListener('hashchange', () => {
    if (win.location.hash.replace(/^#/, '') !== written) read();
  });
}
