// The vertical layout: pinned tracks on top, then each process as a foldable group:
// its filmstrip, its threads (the server's order: main thread first, busy ones
// next), its name-only threads behind an "N empty threads" toggle, its counters,
// async tracks and objects in foldable groups (folded when there are many tracks
// or rows).
// Processes with nothing to draw wait behind an "N empty processes" toggle at the
// end. Hidden tracks, the track filter and the order the user dragged rows into
// apply here; nothing else decides where a track is.

/** @typedef {import('./types.js').Summary} Summary */
/** @typedef {import('./types.js').Track} Track */
/** @typedef {import('./types.js').Process} Process */
/** @typedef {import('./types.js').Thread} Thread */

import { compileFilter, matchesOf, namesOf, processLabel, trackLabel, threadKey } from './trackfilter.js';

export { filterTest, processLabel, threadKey } from './trackfilter.js';

/** Height of the time ruler above the tracks. */
export const RULER_H = 26;
export const ROW_H = 18;
export const HEADER_H = 24;
export const COUNTER_H = 40;
export const EMPTY_H = 20;
export const TRACK_PAD = 4;
/** The thin row of a thread's instants, above its slices. */
export const INSTANT_H = 10;
/** A filmstrip of screenshots. */
export const FILM_H = 56;
export const GROUP_H = 22;
export const TOGGLE_H = 20;
/** A group with more tracks than this starts folded. */
export const MANY = 6;

/**
 * A row of the layout. `key` names it for pinning, hiding and folding (a track's
 * id, `P<id>` for a process, `P<id>:async` for a group); `move` is what a drag of
 * this row moves among its siblings (`parent` the list it reorders).
 * @typedef {{kind: 'process'|'track'|'group'|'empty'|'toggle', key: string, y: number, h: number,
 *   label: string, sub: string, process: Process, thread: number|null, track: Track|null,
 *   collapsed: boolean, indent: number, pinned: boolean, count: number,
 *   move: {parent: string, key: string}|null}} Row
 * @typedef {{rows: Row[], height: number, pinned: Row[], pinnedH: number,
 *   byTrack: Map<string, Row>, groups: Map<number, {y0: number, y1: number}>,
 *   tracks: number, filterError: string|null}} Layout
 * (`tracks`: how many of `rows` are tracks.)
 * @typedef {{pinned: string[], hidden: string[], folds: Record<string, boolean>,
 *   order: Record<string, string[]>, filter: string}} LayoutOptions
 */

/** @type {LayoutOptions} */
export const NO_OPTIONS = { pinned: [], hidden: [], folds: {}, order: {}, filter: '' };

/**
 * Pixels above a track's first slice row: padding, and the instants row if any.
 * @param {Track} track
 */
export function contentTop(track) {
  return TRACK_PAD / 2 + (track.instants ? INSTANT_H : 0);
}

/**
 * Height of a track's row.
 * @param {Track} track
 */
export function trackHeight(track) {
  if (track.kind === 'counter') return COUNTER_H;
  if (track.kind === 'screenshots') return FILM_H;
  const rows = track.kind === 'slices' && track.instants ? track.rows : Math.max(1, track.rows);
  return rows * ROW_H + TRACK_PAD + (track.instants ? INSTANT_H : 0);
}

/** @param {Process} p */
export const processKey = (p) => `P${p.id}`;

/** A process with no track of its own and no thread with one. @param {Process} p */
export function isEmptyProcess(p) {
  return p.tracks.length === 0 && p.threads.every((th) => th.tracks.length === 0);
}

/**
 * `items` in the user's order for `parent` (keys listed there first, in that
 * order), then the rest in their own order.
 * @template T
 * @param {T[]} items
 * @param {(x: T) => string} keyOf
 * @param {string[]|undefined} custom
 * @returns {T[]}
 */
export function ordered(items, keyOf, custom) {
  if (!custom || custom.length === 0) return items;
  const rank = new Map(custom.map((k, i) => [k, i]));
  const at = (/** @type {T} */ x, /** @type {number} */ i) => rank.get(keyOf(x)) ?? custom.length + i;
  return items.map((x, i) => ({ x, r: at(x, i) })).sort((a, b) => a.r - b.r).map((e) => e.x);
}

/**
 * Where every track lives: its process and thread, and the group it is drawn in.
 * @typedef {{track: Track, process: Process, thread: Thread|null, group: string|null}} TrackPlace
 * @param {Summary} summary
 * @returns {Map<string, TrackPlace>}
 */
export function trackPlaces(summary) {
  /** @type {Map<string, TrackPlace>} */
  const out = new Map();
  for (const p of summary.processes) {
    for (const [kind, list] of processGroups(p)) {
      const group = grouped(list) ? `${processKey(p)}:${kind}` : null;
      for (const t of list) out.set(t.id, { track: t, process: p, thread: null, group });
    }
    for (const t of p.tracks) if (!out.has(t.id)) out.set(t.id, { track: t, process: p, thread: null, group: null });
    for (const th of p.threads) for (const t of th.tracks) out.set(t.id, { track: t, process: p, thread: th, group: null });
  }
  return out;
}

/** Process tracks that go in foldable groups, by kind. @param {Process} p @returns {Array<[string, Track[]]>} */
function processGroups(p) {
  return [
    ['counters', p.tracks.filter((t) => t.kind === 'counter')],
    ['async', p.tracks.filter((t) => t.kind === 'async')],
    ['objects', p.tracks.filter((t) => t.kind === 'objects')],
  ];
}

const GROUP_LABEL = /** @type {Record<string, string>} */ ({ counters: 'Counters', async: 'Async', objects: 'Objects' });

/** Rows of a list of tracks. @param {Track[]} list */
const rowsOf = (list) => list.reduce((n, t) => n + Math.max(1, t.rows), 0);

/** Tracks get a group header when there are several, or one very tall. @param {Track[]} list */
const grouped = (list) => list.length > 1 || rowsOf(list) > 2 * MANY;

/** A group starts folded when it holds many tracks or rows (and some thread has work). @param {Track[]} list */
const foldedByDefault = (list) => list.length > MANY || rowsOf(list) > 2 * MANY;

/**
 * A row, always built with the same fields in the same order.
 * @param {Row['kind']} kind @param {string} key @param {number} h @param {string} label @param {string} sub
 * @param {Process} process @param {number|null} thread @param {Track|null} track @param {boolean} collapsed
 * @param {number} indent @param {number} count @param {Row['move']} move
 * @returns {Row}
 */
function mk(kind, key, h, label, sub, process, thread, track, collapsed, indent, count, move) {
  return { kind, key, y: 0, h, label, sub, process, thread, track, collapsed, indent, pinned: false, count, move };
}

/**
 * Rows of earlier layouts of a summary, by key, to reuse: a relayout (a pin, a
 * keystroke in the filter) then allocates almost nothing. A layout replaces the
 * one before it, so sharing its rows is safe.
 * @type {WeakMap<Summary, Map<string, Row>>}
 */
const rowCache = new WeakMap();

/**
 * `mk`, reusing the row of that key from an earlier layout (`cache`).
 * @param {Map<string, Row>} cache
 * @param {Row['kind']} kind @param {string} key @param {number} h @param {string} label @param {string} sub
 * @param {Process} process @param {number|null} thread @param {Track|null} track @param {boolean} collapsed
 * @param {number} indent @param {number} count @param {Row['move']} move
 * @returns {Row}
 */
function reuse(cache, kind, key, h, label, sub, process, thread, track, collapsed, indent, count, move) {
  const r = cache.get(key);
  if (!r || r.kind !== kind) {
    const n = mk(kind, key, h, label, sub, process, thread, track, collapsed, indent, count, move);
    cache.set(key, n);
    return n;
  }
  r.h = h;
  r.label = label;
  r.sub = sub;
  r.process = process;
  r.thread = thread;
  r.track = track;
  r.collapsed = collapsed;
  r.indent = indent;
  r.count = count;
  r.move = move;
  r.pinned = false;
  return r;
}

/**
 * What a drag of a thread's rows moves, by thread id, per summary.
 * @type {WeakMap<Summary, Array<{parent: string, key: string}>>}
 */
const moveCache = new WeakMap();

/**
 * A process's rows as built for one `sig` (what the filter matches in it, and
 * the process's own pins, hidden tracks, folds and orders), each row's offset
 * from the process's top, its height and how many rows are tracks. Track rows
 * are shared by all the variants of a process (nothing of theirs but y depends
 * on the choices); its header, groups and toggles, whose folds and counts do,
 * belong to one variant.
 * @typedef {{rows: Row[], dy: Float64Array, h: number, tracks: number}} Segment
 * A process's recent variants by sig (least recently used first), and the one
 * whose offsets its rows hold now, placed at `y0`.
 * @typedef {{variants: Map<string, Segment>, placed: Segment|null, y0: number}} ProcessRows
 * @type {WeakMap<Summary, Map<number, ProcessRows>>}
 */
const segmentCache = new WeakMap();

/** Variants kept per process: a few filters typed and deleted again, a pin and its unpin. */
const VARIANTS = 8;

/** @param {Summary} summary @param {Process} p @returns {ProcessRows} */
function processRows(summary, p) {
  let m = segmentCache.get(summary);
  if (!m) segmentCache.set(summary, (m = new Map()));
  let pr = m.get(p.id);
  if (!pr) m.set(p.id, (pr = { variants: new Map(), placed: null, y0: 0 }));
  return pr;
}

/**
 * The user's choices that concern each process, as text to compare: its hidden
 * and pinned tracks (and itself, its threads), its folds and its orders.
 * @param {Summary} summary
 * @param {LayoutOptions} opts
 * @returns {Map<number, string>} by process id
 */
function choicesByProcess(summary, opts) {
  const places = placesOf(summary);
  /** @type {Map<number, string[]>} */
  const out = new Map();
  const add = (/** @type {number|undefined} */ p, /** @type {string} */ what) => {
    if (p === undefined) return;
    const list = out.get(p);
    if (list) list.push(what);
    else out.set(p, [what]);
  };
  /** @param {string} key the process of a key: `P3`, `P3:async`, `T5`, or a track id */
  const owner = (key) => {
    const m = key.match(/^P(\d+)(?::|$)/);
    if (m) return Number(m[1]);
    const at = places.get(key);
    if (at) return at.process.id;
    const t = key.match(/^T(\d+)$/);
    return t ? threadsOf(summary).get(Number(t[1])) : undefined;
  };
  for (const k of opts.hidden) add(owner(k), `h${k}`);
  for (const k of opts.pinned) add(owner(k), `p${k}`);
  for (const [k, v] of Object.entries(opts.folds)) add(owner(k), `f${k}=${v}`);
  for (const [k, v] of Object.entries(opts.order)) add(owner(k), `o${k}=${v.join('.')}`);
  return new Map([...out].map(([p, list]) => [p, list.join('\u0001')]));
}

/** @type {WeakMap<Summary, Map<number, number>>} */
const threadProcessCache = new WeakMap();

/** Thread id -> process id, once per summary. @param {Summary} summary */
function threadsOf(summary) {
  let m = threadProcessCache.get(summary);
  if (!m) {
    m = new Map();
    for (const p of summary.processes) for (const th of p.threads) m.set(th.id, p.id);
    threadProcessCache.set(summary, m);
  }
  return m;
}

/** @type {WeakMap<Summary, Map<string, TrackPlace>>} */
const placesCache = new WeakMap();

/** `trackPlaces`, once per summary. @param {Summary} summary */
export function placesOf(summary) {
  let m = placesCache.get(summary);
  if (!m) placesCache.set(summary, (m = trackPlaces(summary)));
  return m;
}

/**
 * Lay out every track top to bottom.
 *
 * A process's rows depend only on its own tracks, the filter and the user's
 * choices about that process: each process keeps its last few layouts by those
 * (`ProcessRows`), and a relayout moves the rows of an unchanged process into
 * place, rewriting only their y (nothing when they stay put). A new filter
 * text is matched once per process, on names lower-cased once (trackfilter.js).
 * @param {Summary} summary
 * @param {LayoutOptions} opts
 * @returns {Layout}
 */
export function buildLayout(summary, opts = NO_OPTIONS) {
  const { folds, order } = opts;
  const hidden = new Set(opts.hidden);
  const pinnedSet = new Set(opts.pinned);
  const filter = compileFilter(opts.filter);
  const matches = filter ? matchesOf(summary, filter) : null;
  // Names lower-cased for the filter: built when a filter is first typed.
  const names = matches ? namesOf(summary) : null;
  /** @type {Row[]} */
  const rows = [];
  /** @type {Map<number, {y0: number, y1: number}>} */
  const groups = new Map();
  const fold = (/** @type {string} */ key, /** @type {boolean} */ dflt) => folds[key] ?? dflt;
  // With no thread doing anything (a trace of objects, async or counters only),
  // the groups are the work: they start open however many tracks they hold.
  const anyBusy = summary.processes.some((p) => p.threads.some((th) => th.tracks.length > 0));
  let y = 0;
  let trackRows = 0;
  let cache = rowCache.get(summary);
  if (!cache) rowCache.set(summary, (cache = new Map()));
  const rowCacheNow = cache;
  let moves = moveCache.get(summary);
  if (!moves) moveCache.set(summary, (moves = []));
  const threadMoves = moves;
  /**
   * A track row (or an empty thread's), shared by the variants of its process.
   * @param {Row['kind']} kind @param {string} key @param {number} h @param {string} label @param {string} sub
   * @param {Process} process @param {number|null} thread @param {Track|null} track
   * @param {number} indent @param {Row['move']} move
   */
  const shared = (kind, key, h, label, sub, process, thread, track, indent, move) =>
    reuse(rowCacheNow, kind, key, h, label, sub, process, thread, track, false, indent, 0, move);

  /**
   * Place a row. Rows are built with one shape (`mk`) and no copies: 10,000
   * tracks lay out in a few milliseconds.
   * @param {Row} row
   */
  const push = (row) => {
    row.y = y;
    rows.push(row);
    if (row.track) trackRows++;
    y += row.h;
  };
  // Processes with a hidden or pinned track: only their tracks need looking up.
  const places = placesOf(summary);
  const touched = new Set();
  for (const id of [...hidden, ...pinnedSet]) {
    const at = places.get(id);
    if (at) touched.add(at.process);
  }
  /** @param {Track} t */
  const visible = (t) => !hidden.has(t.id) && !pinnedSet.has(t.id);

  /**
   * One process: header and, unless folded, its rows. With a filter, only what
   * matches (everything when the process's own name matches).
   * @param {Process} p
   */
  const buildProcess = (p) => {
    const pk = processKey(p);
    if (hidden.has(pk)) return;
    const m = matches ? matches.get(p) : undefined;
    const all = !m || m.all;
    // Nothing of this process matches the filter.
    if (!all && (!m || m.hit === null)) return;
    const n = names ? names.get(p) : undefined;
    const hit = m ? m.hit : null;
    /** Whether the filter keeps the track or thread of this key. @param {string} key */
    const shows = (key) => all || (hit !== null && n !== undefined && hit[/** @type {number} */ (n.at.get(key))] === 1);
    const noneHidden = !touched.has(p);
    const film = p.tracks.filter((t) => t.kind === 'screenshots' && (noneHidden || visible(t)) && shows(t.id));
    const busy = p.threads.filter((th) => th.tracks.length > 0);
    /** Threads shown, and the tracks of each shown (null: all of them). @type {Thread[]} */
    let threads = ordered(busy, threadKey, order[pk]);
    /** @type {Array<Track[]|null>|null} */
    let only = null;
    if (!noneHidden || !all) {
      const kept = [];
      only = [];
      for (const th of threads) {
        const tracks = th.tracks.filter((t) => visible(t) && shows(t.id));
        if (tracks.length === 0) continue;
        kept.push(th);
        only.push(tracks.length === th.tracks.length ? null : tracks);
      }
      threads = kept;
    }
    const idle = p.threads.filter((th) => th.tracks.length === 0 && !hidden.has(threadKey(th)) && shows(threadKey(th)));
    /** Groups shown, with their tracks shown. @type {Array<[string, Track[], Track[]]>} */
    const groupsShown = [];
    for (const [kind, list] of processGroups(p)) {
      if (list.length === 0) continue;
      const tracks = ordered(list, (t) => t.id, order[`${pk}:${kind}`]).filter((t) => (noneHidden || visible(t)) && shows(t.id));
      if (tracks.length > 0) groupsShown.push([kind, list, tracks]);
    }
    if (!all && film.length + threads.length + idle.length + groupsShown.length === 0) return;
    const y0 = y;
    const folded = matches ? false : fold(pk, false);
    push(mk('process', pk, HEADER_H, n ? n.label : processLabel(p), '', p, null, null, folded, 0, 0, { parent: 'root', key: pk }));
    if (!folded) {
      for (const t of film) push(shared('track', t.id, trackHeight(t), t.name, t.kind, p, null, t, 1, null));
      for (let k = 0; k < threads.length; k++) {
        const th = threads[k];
        const these = only && only[k];
        const move = threadMoves[th.id] ?? (threadMoves[th.id] = { parent: pk, key: threadKey(th) });
        for (let i = 0; i < th.tracks.length; i++) {
          const t = th.tracks[i];
          if (these && !these.includes(t)) continue;
          const label = n ? n.names[/** @type {number} */ (n.at.get(t.id))] : trackLabel(th, t, i);
          push(shared('track', t.id, trackHeight(t), label, i === 0 ? '' : t.kind, p, th.id, t, 1, move));
        }
      }
      if (idle.length > 0) {
        const key = `${pk}:empty`;
        // A process with nothing else (behind the "empty processes" toggle) lists
        // its threads at once; with a filter, the ones it found show at once.
        const alone = busy.length === 0 && p.tracks.length === 0;
        const closed = alone || (matches && !all) ? false : fold(key, true);
        if (!alone) {
          push(mk('toggle', key, TOGGLE_H, `${idle.length} empty thread${idle.length === 1 ? '' : 's'}`, 'metadata only', p, null, null, closed, 1, idle.length, null));
        }
        if (!closed) for (const th of idle) push(shared('empty', threadKey(th), EMPTY_H, th.label, '', p, th.id, null, alone ? 1 : 2, null));
      }
      for (const [kind, list, tracks] of groupsShown) {
        if (!grouped(list)) {
          const t = tracks[0];
          push(shared('track', t.id, trackHeight(t), t.name, t.kind, p, null, t, 1, null));
          continue;
        }
        const gk = `${pk}:${kind}`;
        const closed = matches && !all ? false : fold(gk, anyBusy && foldedByDefault(list));
        const sub = list.length > 1 ? `${tracks.length} tracks` : `${rowsOf(list)} rows`;
        push(mk('group', gk, GROUP_H, GROUP_LABEL[kind], sub, p, null, null, closed, 1, tracks.length, null));
        if (closed) continue;
        for (const t of tracks) push(shared('track', t.id, trackHeight(t), t.name, t.kind, p, null, t, 2, { parent: gk, key: t.id }));
      }
    }
    groups.set(p.id, { y0, y1: y });
  };

  const mine = choicesByProcess(summary, opts);
  /** A process's rows: a variant built before, moved into place, or built now. @param {Process} p */
  const addProcess = (p) => {
    const m = matches ? matches.get(p) : undefined;
    const sig = `${m ? m.id : ''}\u0000${mine.get(p.id) ?? ''}`;
    const pr = processRows(summary, p);
    const seg = pr.variants.get(sig);
    if (!seg) {
      const from = rows.length;
      const y0 = y;
      const before = trackRows;
      buildProcess(p);
      const built = rows.slice(from);
      const dy = new Float64Array(built.length);
      for (let i = 0; i < built.length; i++) dy[i] = built[i].y - y0;
      const made = { rows: built, dy, h: y - y0, tracks: trackRows - before };
      pr.variants.set(sig, made);
      if (pr.variants.size > VARIANTS) pr.variants.delete(/** @type {string} */ (pr.variants.keys().next().value));
      pr.placed = made;
      pr.y0 = y0;
      return;
    }
    pr.variants.delete(sig);
    pr.variants.set(sig, seg);
    if (pr.placed !== seg || pr.y0 !== y) {
      for (let i = 0; i < seg.rows.length; i++) seg.rows[i].y = y + seg.dy[i];
      pr.placed = seg;
      pr.y0 = y;
    }
    for (const r of seg.rows) rows.push(r);
    if (seg.rows.length) groups.set(p.id, { y0: y, y1: y + seg.h });
    y += seg.h;
    trackRows += seg.tracks;
  };

  const procs = ordered(summary.processes, processKey, order.root);
  const empty = procs.filter(isEmptyProcess);
  for (const p of procs) if (!isEmptyProcess(p)) addProcess(p);
  const emptyShown = empty.filter((p) => {
    if (hidden.has(processKey(p))) return false;
    const m = matches ? matches.get(p) : undefined;
    return !m || m.all || m.hit !== null;
  });
  if (emptyShown.length > 0) {
    const folded = matches ? false : fold('empty', true);
    const first = emptyShown[0];
    push(mk('toggle', 'empty', TOGGLE_H, `${emptyShown.length} empty process${emptyShown.length === 1 ? '' : 'es'}`, 'metadata only', first, null, null,
      folded, 0, emptyShown.length, null));
    if (!folded) for (const p of emptyShown) addProcess(p);
  }

  // The pinned area, in the order pinned.
  /** @type {Row[]} */
  const pinned = [];
  let py = 0;
  for (const id of opts.pinned) {
    const at = places.get(id);
    if (!at || hidden.has(id)) continue;
    const { track: t, process: p, thread: th } = at;
    const i = th ? th.tracks.indexOf(t) : 0;
    const own = th ? trackLabel(th, t, i) : t.name;
    const r = reuse(rowCacheNow, 'track', `pin|${id}`, trackHeight(t), own, p.name ?? p.label, p, th ? th.id : null, t, false, 0, 0, { parent: 'pinned', key: id });
    r.key = id;
    r.y = py;
    r.pinned = true;
    pinned.push(r);
    py += r.h;
  }
  /** @type {Map<string, Row>|null} */
  let byTrack = null;
  return {
    rows, height: y, pinned, pinnedH: py, groups, tracks: trackRows, filterError: filter ? filter.error : null,
    // Built when first asked for (a selection, a flow): not on every keystroke.
    get byTrack() {
      if (!byTrack) {
        byTrack = new Map();
        for (const r of rows) if (r.track) byTrack.set(r.track.id, r);
        for (const r of pinned) byTrack.set(/** @type {Track} */ (r.track).id, r);
      }
      return byTrack;
    },
  };
}

/**
 * Index of the row containing y, or -1 (binary search: rows are sorted by y).
 * @param {Row[]} rows
 * @param {number} y
 */
export function rowIndexAt(rows, y) {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = rows[mid];
    if (y < r.y) hi = mid - 1;
    else if (y >= r.y + r.h) lo = mid + 1;
    else return mid;
  }
  return -1;
}

/**
 * The rows intersecting [y0, y1).
 * @param {Row[]} rows
 * @param {number} y0
 * @param {number} y1
 */
export function visibleRows(rows, y0, y1) {
  let i = rowIndexAt(rows, Math.max(0, y0));
  if (i < 0) i = 0;
  const out = [];
  for (; i < rows.length && rows[i].y < y1; i++) if (rows[i].y + rows[i].h > y0) out.push(rows[i]);
  return out;
}

/**
 * The folds that would show `track` (its process, its group), or null if it is
 * drawn already or unknown.
 * @param {Map<string, TrackPlace>} places
 * @param {string} track
 * @returns {Record<string, boolean>|null}
 */
export function foldsToShow(places, track) {
  const at = places.get(track);
  if (!at) return null;
  /** @type {Record<string, boolean>} */
  const out = { [processKey(at.process)]: false };
  if (at.group) out[at.group] = false;
  if (isEmptyProcess(at.process)) out.empty = false;
  return out;
}
